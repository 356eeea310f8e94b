/**
 * Runs the Java side of the interop tests: the Maven-built driver (interop/) and mqadmin, for one
 * RocketMQ version at a time. Every Java client gets an explicit loopback name server.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface InteropVersion {
  /** RocketMQ version string, e.g. `4.9.7`. */
  readonly version: string;
  /** Major line, for test names and version-specific expectations. */
  readonly major: 4 | 5;
}

/** The versions every interop test runs against; keep in step with interop/v4|v5/pom.xml. */
export const INTEROP_VERSIONS: readonly InteropVersion[] = Object.freeze([
  { version: '4.9.7', major: 4 },
  { version: '5.5.0', major: 5 },
]);

/** --add-opens/--add-exports RocketMQ (Netty, fastjson, mmap cleaners) needs on Java 17. */
export const JAVA17_OPENS: readonly string[] = Object.freeze(
  [
    'java.base/java.lang',
    'java.base/java.lang.reflect',
    'java.base/java.lang.invoke',
    'java.base/java.io',
    'java.base/java.net',
    'java.base/java.nio',
    'java.base/java.util',
    'java.base/java.util.concurrent',
    'java.base/java.util.concurrent.atomic',
    'java.base/sun.nio.ch',
    'java.base/jdk.internal.misc',
    'java.base/jdk.internal.ref',
    'java.management/sun.management',
  ]
    .flatMap((pkg) => ['--add-opens', `${pkg}=ALL-UNNAMED`])
    .concat([
      '--add-exports',
      'java.base/sun.nio.ch=ALL-UNNAMED',
      '--add-exports',
      'java.base/jdk.internal.ref=ALL-UNNAMED',
    ]),
);

/**
 * Guards every JVM we start: should anything ever try the HTTP name-server lookup, it would hit a
 * closed loopback port instead of a remote host.
 */
export const LOOPBACK_GUARDS: readonly string[] = Object.freeze([
  '-Drocketmq.namesrv.domain=127.0.0.1:9',
  '-Drocketmq.namesrv.domain.subgroup=nsaddr',
  '-Djava.net.preferIPv4Stack=true',
]);

/** A logback configuration that sends everything to `${user.home}/logs/<name>.log`. */
export function logbackXml(name: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>\${user.home}/logs/${name}.log</file>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5p [%t] %c{0} - %m%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`;
}

let prepared = false;

/** Builds interop/ with Maven when needed (scripts/interop-prepare.mjs); throws when Java is missing. */
export function prepareInterop(): void {
  if (prepared) return;
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'scripts', 'interop-prepare.mjs')], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0)
    throw new Error(`interop: preparing the Java harness failed (exit ${r.status ?? r.signal})`);
  prepared = true;
}

export function javaBinary(): string {
  const home = process.env.JAVA_HOME;
  return home !== undefined && home !== '' ? join(home, 'bin', 'java') : 'java';
}

export function classpath(version: string): string {
  return join(REPO_ROOT, 'interop', 'target', version, 'lib', '*');
}

export interface JavaRunOptions {
  /** Kill the JVM after this long. @default 120000 */
  timeoutMs?: number;
  /** Extra JVM flags. */
  jvmArgs?: string[];
  /**
   * stderr lines to keep whole in `keptLines` (stderr itself keeps only its last ~64 KiB), e.g.
   * the OpenTelemetry agent's span lines (interop-test/otel-agent.ts).
   */
  keepStderrLines?: RegExp;
  /**
   * A command the JVM runs under (e.g. `['strace', '-f', ...]`): it gets `java <flags>` as its
   * arguments and its own process group, which the timeout kills whole.
   */
  launcher?: readonly string[];
}

export interface JavaRunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The stderr lines `keepStderrLines` matched, in order (empty without it). */
  keptLines: string[];
}

/** Runs one JVM with the version's classpath; stdout and stderr are collected. */
export async function runJava(
  version: string,
  mainClass: string,
  args: readonly string[],
  options: JavaRunOptions = {},
): Promise<JavaRunResult> {
  prepareInterop();
  const home = mkdtempSync(join(tmpdir(), 'rmq-interop-client-'));
  // mqadmin (4.9) insists on $ROCKETMQ_HOME/conf/logback_tools.xml.
  mkdirSync(join(home, 'conf'));
  writeFileSync(join(home, 'conf', 'logback_tools.xml'), logbackXml('tools'));
  const jvm = [
    ...JAVA17_OPENS,
    ...LOOPBACK_GUARDS,
    '-Xms64m',
    '-Xmx384m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Duser.home=${home}`,
    `-Drocketmq.home.dir=${home}`,
    `-Drocketmq.client.logRoot=${join(home, 'logs')}`,
    '-Drocketmq.client.logLevel=WARN',
    // Rebalance every second instead of every 20 s, so a consumer starts pulling quickly.
    '-Drocketmq.client.rebalance.waitInterval=1000',
    ...(options.jvmArgs ?? []),
    '-cp',
    classpath(version),
    mainClass,
    ...args,
  ];
  try {
    return await new Promise<JavaRunResult>((resolve, reject) => {
      const launcher = options.launcher ?? [];
      const [command, ...prefix] = [...launcher, javaBinary()];
      const child = spawn(command ?? javaBinary(), [...prefix, ...jvm], {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: launcher.length > 0,
      });
      // A launcher's group is tracked as -pgid, so the exit hook ends the JVM under it as well.
      const tracked = launcher.length > 0 && child.pid !== undefined ? -child.pid : child.pid;
      track(tracked);
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let errBytes = 0;
      const keep = options.keepStderrLines;
      const keptLines: string[] = [];
      let partial = '';
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => {
        if (keep !== undefined) {
          const lines = (partial + b.toString('utf8')).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) if (keep.test(line)) keptLines.push(line);
        }
        // Keep only the last ~64 KiB of stderr: 5.x logback prints a lot at start.
        err.push(b);
        errBytes += b.length;
        while (errBytes > 65536 && err.length > 1) errBytes -= err.shift()?.length ?? 0;
      });
      const timer = setTimeout(() => {
        // Under a launcher the JVM is its child: end the whole group, not the launcher alone.
        if (launcher.length > 0 && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      }, options.timeoutMs ?? 120_000);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`interop: cannot start ${javaBinary()}: ${e.message}`));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        untrack(tracked);
        if (keep !== undefined && keep.test(partial)) keptLines.push(partial);
        resolve({
          code,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
          keptLines,
        });
      });
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs the interop driver and parses its one-line JSON result (the last `{` line on stdout). */
export async function runDriver<T = Record<string, unknown>>(
  version: string,
  args: readonly string[],
  options: JavaRunOptions = {},
): Promise<T> {
  return parseDriverResult<T>(
    version,
    args,
    await runJava(version, 'org.rocketmqts.interop.Driver', args, options),
  );
}

/** The driver's one-line JSON result out of a finished run; throws with its output when absent. */
export function parseDriverResult<T>(version: string, args: readonly string[], r: JavaRunResult): T {
  const line = r.stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('{'))
    .pop();
  if (r.code !== 0 || line === undefined) {
    throw new Error(
      `driver ${args.join(' ')} (RocketMQ ${version}) exited ${r.code}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${stderrTail(r.stderr)}`,
    );
  }
  return JSON.parse(line) as T;
}

/**
 * The driver's verifying push consumer on `topic` (group `interop_cg_<topic>`): waits for
 * `expect` distinct messages or `timeoutMs`, and reports missing, corrupt and duplicate ones.
 */
export function consumeWithJava(
  version: string,
  namesrvAddr: string,
  topic: string,
  expect: number,
  timeoutMs: number,
  extra: readonly string[] = [],
): Promise<ConsumeResult> {
  return runDriver<ConsumeResult>(version, [
    'consume',
    '--namesrv',
    namesrvAddr,
    '--topic',
    topic,
    '--group',
    `interop_cg_${topic}`,
    '--expect',
    String(expect),
    '--timeout-ms',
    String(timeoutMs),
    ...extra,
  ]);
}

export interface PushOptions {
  /** How long the member stays in the group. */
  durationMs: number;
  /** @default 'first' */
  from?: 'first' | 'last';
  /** Tag expression. @default '*' */
  expression?: string;
  /** SQL92 selector instead of a tag expression. */
  sql?: string;
  /** Consume threads. @default 20 */
  threads?: number;
}

/**
 * The driver's plain push consumer as one member of `group` on `topics` for `durationMs`: what it
 * consumed and which queues it held over time.
 */
export function pushWithJava(
  version: string,
  namesrvAddr: string,
  group: string,
  topics: readonly string[],
  options: PushOptions,
): Promise<PushResult> {
  const args = ['push', '--namesrv', namesrvAddr, '--group', group, '--topics', topics.join(',')];
  args.push('--duration-ms', String(options.durationMs), '--from', options.from ?? 'first');
  if (options.expression !== undefined) args.push('--expression', options.expression);
  if (options.sql !== undefined) args.push('--sql', options.sql);
  if (options.threads !== undefined) args.push('--threads', String(options.threads));
  return runDriver<PushResult>(version, args, { timeoutMs: options.durationMs + 60_000 });
}

/**
 * The Java consumer benchmark: a new group drains `expect` messages of `topic` from the first
 * offset with 20 consume threads. Runs with the full JIT (the harness default is C1 only).
 */
export function drainWithJava(
  version: string,
  namesrvAddr: string,
  topic: string,
  group: string,
  expect: number,
  threads = 20,
): Promise<DrainResult> {
  return runDriver<DrainResult>(
    version,
    [
      'drain',
      '--namesrv',
      namesrvAddr,
      '--topic',
      topic,
      '--group',
      group,
      '--expect',
      String(expect),
    ].concat(['--threads', String(threads)]),
    { timeoutMs: 600_000, jvmArgs: ['-XX:TieredStopAtLevel=4', '-Xmx1g'] },
  );
}

/**
 * Java 5.x's POP-mode push consumer benchmark (the driver's `pushPop`, `setClientRebalance(false)`):
 * a group already switched to POP drains `expect` distinct messages of `topic` with 20 consume
 * threads and the full JIT, as `drainWithJava`.
 */
export function drainWithJavaPopPush(
  version: string,
  namesrvAddr: string,
  topic: string,
  group: string,
  expect: number,
): Promise<DrainResult> {
  return runDriver<DrainResult>(
    version,
    [
      'pushPop',
      '--namesrv',
      namesrvAddr,
      '--topic',
      topic,
      '--group',
      group,
      '--expect',
      String(expect),
    ].concat(['--duration-ms', '540000', '--record', 'false']),
    { timeoutMs: 600_000, jvmArgs: ['-XX:TieredStopAtLevel=4', '-Xmx1g'] },
  );
}

/** `mqadmin <args>` (org.apache.rocketmq.tools.command.MQAdminStartup); returns stdout. */
export async function runMqadmin(
  version: string,
  args: readonly string[],
  options: JavaRunOptions = {},
): Promise<JavaRunResult> {
  return runJava(version, 'org.apache.rocketmq.tools.command.MQAdminStartup', args, {
    timeoutMs: 60_000,
    ...options,
  });
}

function stderrTail(s: string): string {
  // Drop logback's own status lines (5.x prints hundreds at start).
  return s
    .split('\n')
    .filter((l) => !/\|-(INFO|WARN) in /.test(l))
    .join('\n')
    .slice(-3000);
}

// Child JVMs die with the test process, even when it fails before its after() hooks run.
const live = new Set<number>();
let exitHookInstalled = false;

/** Tracks a child (or, as a negative number, a process group) to kill when this process exits. */
export function track(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  live.add(pid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', killAllTracked);
    // A test run interrupted from outside must not leave JVMs behind either.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        killAllTracked();
        process.exit(signal === 'SIGINT' ? 130 : 143);
      });
    }
  }
  return pid;
}

function killAllTracked(): void {
  for (const p of live) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  live.clear();
}

export function untrack(pid: number | undefined): void {
  if (pid !== undefined) live.delete(pid);
}

// ---------------------------------------------------------------- driver result shapes

export interface ProduceResult {
  sent: number;
  failed: number;
  elapsedMs: number;
  msgIds: string[];
  notOkStatuses: string[];
  errors: string[];
}

export interface ConsumedMessage {
  seq?: string;
  msgId: string;
  tags: string | null;
  keys: string | null;
  props: Record<string, string>;
  bodyLen: number;
  bodyHex: string;
  bodySha256: string;
  queueId: number;
  queueOffset: number;
  brokerName: string | null;
  storeHost: string;
  bornHost: string;
  sysFlag: number;
  reconsumeTimes: number;
  problems?: string[];
}

export interface ConsumeResult {
  received: number;
  total: number;
  elapsedMs: number;
  missingCount: number;
  missing: number[];
  corruptCount: number;
  corrupt: ConsumedMessage[];
  duplicates: number[];
  duplicateCount: number;
  duplicateSameMsgId: number;
  unexpected: ConsumedMessage[];
  noSeq: ConsumedMessage[];
  /** seq → msgId (UNIQ_KEY) of the first delivery. */
  ids: Record<string, string>;
  messages: ConsumedMessage[];
}

export interface BenchResult {
  threads: number;
  size: number;
  durationMs: number;
  sent: number;
  failed: number;
  msgsPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface AdminBrokerData {
  cluster: string;
  brokerName: string;
  brokerAddrs: Record<string, string>;
}

export interface ClusterListResult {
  clusters: Record<string, string[]>;
  brokers: Record<string, AdminBrokerData>;
}

export interface TopicRouteResult {
  brokerDatas: AdminBrokerData[];
  queueDatas: {
    brokerName: string;
    readQueueNums: number;
    writeQueueNums: number;
    perm: number;
    topicSysFlag: number;
  }[];
}

/** Compact summary of a consume result for assertion messages. */
export function describeConsume(r: ConsumeResult): string {
  return JSON.stringify({
    received: r.received,
    total: r.total,
    missingCount: r.missingCount,
    missing: r.missing.slice(0, 20),
    corrupt: r.corrupt.slice(0, 3),
    duplicates: r.duplicates.slice(0, 20),
    unexpected: r.unexpected.slice(0, 3),
    noSeq: r.noSeq.slice(0, 3),
  });
}

export interface PushedMessage {
  msgId: string;
  topic: string;
  brokerName: string;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
  properties: Record<string, string>;
  atMs: number;
}

export interface PushResult {
  clientId: string;
  total: number;
  startedAtMs: number;
  endedAtMs: number;
  /** Queues held at the end, as `topic@brokerName@queueId`. */
  allocation: string[];
  /** Every change of the held queues, with its epoch time. */
  timeline: { atMs: number; queues: string[] }[];
  messages: PushedMessage[];
}

export interface DrainResult {
  client: string;
  received: number;
  bytes: number;
  complete: boolean;
  firstToLastMs: number;
  msgsPerSec: number;
  cpuMs: number;
  wallMs: number;
  cpuUsPerMsg: number;
}
