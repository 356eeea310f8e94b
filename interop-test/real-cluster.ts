/**
 * Starts a real Apache RocketMQ NameServer and brokers (one cluster, `DefaultCluster`) as `java`
 * child processes, loopback only, with the store in a temporary directory. `stop()` ends every
 * process by PID (SIGTERM, then SIGKILL) and removes the directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestCode } from '../src/protocol/codes.js';
import { parseClusterInfo } from '../src/protocol/headers/register.js';
import {
  JAVA17_OPENS,
  LOOPBACK_GUARDS,
  classpath,
  javaBinary,
  logbackXml,
  prepareInterop,
  track,
  untrack,
} from './java.js';
import { canConnect, rawRequest } from './raw-remoting.js';

export interface RealClusterOptions {
  /** RocketMQ version (a directory under interop/target). */
  version: string;
  /** Broker names. @default ['broker-a', 'broker-b'] */
  brokers?: string[];
  /** How long to wait for the name server and every broker to register. @default 120000 */
  startTimeoutMs?: number;
  /**
   * C1-only JIT (`-XX:TieredStopAtLevel=1`): starts much faster on a busy 2-core machine, at some
   * cost in peak throughput. Turn off for benchmarks. @default true
   */
  quickJit?: boolean;
  /** Extra broker.conf lines (key → value), applied to every broker. */
  brokerConfig?: Record<string, string | number | boolean>;
  /** Files written under `${rocketmq.home.dir}/conf/` before any server starts (e.g. `plain_acl.yml`). */
  confFiles?: Record<string, string>;
  /** Extra JVM flags of the brokers only (e.g. `-Dtls.server.mode=enforcing`). */
  brokerJvmArgs?: string[];
}

export interface RealBroker {
  readonly name: string;
  /** `127.0.0.1:listenPort`. */
  readonly addr: string;
  readonly listenPort: number;
  readonly pid: number | undefined;
  readonly alive: boolean;
}

interface Proc {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<void>;
  alive: boolean;
}

const SERVER_JVM: readonly string[] = Object.freeze([
  '-server',
  '-Xms512m',
  '-Xmx512m',
  '-XX:MaxDirectMemorySize=256m',
  '-XX:+UseSerialGC',
  '-XX:-OmitStackTraceInFastThrow',
  '-Dio.netty.leakDetection.level=disabled',
]);

function toConf(entries: Record<string, string | number | boolean>): string {
  return Object.entries(entries)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n');
}

/** True when `port` can be bound on 127.0.0.1 right now. */
function portFree(port: number): Promise<boolean> {
  if (port < 1024 || port > 65535) return Promise.resolve(false);
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

async function ephemeralPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A listen port whose VIP (port-2) and HA (port+1) neighbours are free too. */
async function brokerPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = await ephemeralPort();
    const all = [p - 2, p, p + 1];
    if (all.some((x) => taken.has(x))) continue;
    if ((await portFree(p - 2)) && (await portFree(p + 1)) && (await portFree(p))) {
      for (const x of all) taken.add(x);
      return p;
    }
  }
  throw new Error('real cluster: no free broker port triple found');
}

export class RealCluster {
  readonly version: string;
  readonly namesrvAddr: string;
  private readonly dir: string;
  private readonly procs = new Map<string, Proc>();
  private readonly brokerPorts = new Map<string, number>();
  private readonly jvmExtra: readonly string[];
  private brokerJvm: readonly string[] = [];
  private stopped = false;

  private constructor(version: string, dir: string, namesrvAddr: string, jvmExtra: readonly string[]) {
    this.version = version;
    this.dir = dir;
    this.namesrvAddr = namesrvAddr;
    this.jvmExtra = jvmExtra;
  }

  static async start(options: RealClusterOptions): Promise<RealCluster> {
    prepareInterop();
    const names = options.brokers ?? ['broker-a', 'broker-b'];
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    const dir = mkdtempSync(join(tmpdir(), `rmq-real-${options.version}-`));
    mkdirSync(join(dir, 'conf'));
    for (const n of ['namesrv', 'broker', 'tools'])
      writeFileSync(join(dir, 'conf', `logback_${n}.xml`), logbackXml(n));
    for (const [name, text] of Object.entries(options.confFiles ?? {}))
      writeFileSync(join(dir, 'conf', name), text);

    const taken = new Set<number>();
    const nsPort = await ephemeralPort();
    taken.add(nsPort);
    const jvmExtra = options.quickJit === false ? [] : ['-XX:TieredStopAtLevel=1'];
    const cluster = new RealCluster(options.version, dir, `127.0.0.1:${nsPort}`, jvmExtra);
    cluster.brokerJvm = options.brokerJvmArgs ?? [];
    try {
      writeFileSync(
        join(dir, 'namesrv.conf'),
        toConf({
          listenPort: nsPort,
          bindAddress: '127.0.0.1',
          kvConfigPath: join(dir, 'namesrv', 'kvConfig.json'),
        }),
      );
      cluster.spawnServer('namesrv', 'org.apache.rocketmq.namesrv.NamesrvStartup', join(dir, 'namesrv.conf'));
      await cluster.waitFor('namesrv', deadline, () => canConnect(cluster.namesrvAddr));

      for (const name of names) {
        const port = await brokerPort(taken);
        cluster.brokerPorts.set(name, port);
        const store = join(dir, 'store', name);
        writeFileSync(
          join(dir, `${name}.conf`),
          toConf({
            brokerClusterName: 'DefaultCluster',
            brokerName: name,
            brokerId: 0,
            brokerRole: 'ASYNC_MASTER',
            flushDiskType: 'ASYNC_FLUSH',
            listenPort: port,
            haListenPort: port + 1,
            bindAddress: '127.0.0.1',
            namesrvAddr: cluster.namesrvAddr,
            brokerIP1: '127.0.0.1',
            brokerIP2: '127.0.0.1',
            fetchNamesrvAddrByAddressServer: false,
            autoCreateTopicEnable: true,
            autoCreateSubscriptionGroup: true,
            storePathRootDir: store,
            storePathCommitLog: join(store, 'commitlog'),
            mappedFileSizeCommitLog: 32 * 1024 * 1024,
            mappedFileSizeConsumeQueue: 3000 * 20,
            maxHashSlotNum: 50_000,
            maxIndexNum: 200_000,
            diskMaxUsedSpaceRatio: 95,
            // 5.x only (ignored by 4.9): no controller, no timer wheel, no metrics exporter.
            enableControllerMode: false,
            timerWheelEnable: false,
            metricsExporterType: 'DISABLE',
            ...options.brokerConfig,
          }),
        );
        cluster.spawnServer(name, 'org.apache.rocketmq.broker.BrokerStartup', join(dir, `${name}.conf`));
      }
      await cluster.waitFor('brokers to register', deadline, async () => {
        const registered = await cluster.registeredBrokers();
        return names.every((n) => registered.includes(n));
      });
      return cluster;
    } catch (err) {
      const logs = cluster.logTails();
      await cluster.stop();
      throw new Error(`${(err as Error).message}\n${logs}`);
    }
  }

  /** Broker names the name server currently lists in GET_BROKER_CLUSTER_INFO. */
  async registeredBrokers(): Promise<string[]> {
    try {
      const res = await rawRequest(this.namesrvAddr, RequestCode.GET_BROKER_CLUSTER_INFO);
      if (res.code !== 0 || res.body === undefined) return [];
      const info = parseClusterInfo(res.body);
      return Object.keys(info.brokerAddrTable).filter(
        (n) => info.brokerAddrTable[n]?.brokerAddrs['0'] !== undefined,
      );
    } catch {
      return [];
    }
  }

  get brokers(): RealBroker[] {
    return [...this.brokerPorts.entries()].map(([name, port]) => this.brokerInfo(name, port));
  }

  broker(name: string): RealBroker {
    const port = this.brokerPorts.get(name);
    if (port === undefined) throw new Error(`no broker ${name}`);
    return this.brokerInfo(name, port);
  }

  private brokerInfo(name: string, port: number): RealBroker {
    const proc = this.procs.get(name);
    return {
      name,
      addr: `127.0.0.1:${port}`,
      listenPort: port,
      pid: proc?.child.pid,
      alive: proc?.alive ?? false,
    };
  }

  /** Sends `signal` to one server process (e.g. SIGKILL a broker mid-run) and waits for it to exit. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const proc = this.procs.get(name);
    if (proc === undefined) throw new Error(`no process ${name}`);
    if (!proc.alive || proc.child.pid === undefined) return;
    process.kill(proc.child.pid, signal);
    await proc.exited;
  }

  /**
   * Starts a stopped or killed broker again on the same port and store (it recovers its commit
   * log) and waits until the name server lists it again.
   */
  async restart(name: string, timeoutMs = 90_000): Promise<void> {
    const proc = this.procs.get(name);
    if (proc === undefined || !this.brokerPorts.has(name)) throw new Error(`no broker ${name}`);
    if (proc.alive) throw new Error(`broker ${name} is still running`);
    this.spawnServer(name, 'org.apache.rocketmq.broker.BrokerStartup', join(this.dir, `${name}.conf`));
    await this.waitFor(`${name} to register again`, Date.now() + timeoutMs, async () =>
      (await this.registeredBrokers()).includes(name),
    );
  }

  /** The last lines of every server log (stdout/stderr and logback files), for failure messages. */
  logTails(lines = 15): string {
    const out: string[] = [];
    for (const proc of this.procs.values()) {
      const logs = join(this.dir, 'home', proc.name, 'logs');
      const files = [
        proc.logFile,
        join(logs, 'namesrv.log'),
        join(logs, 'broker.log'),
        join(logs, 'rocketmqlogs', 'broker.log'),
      ];
      for (const file of files) {
        try {
          const text = readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => !/\|-(INFO|WARN) in /.test(l));
          out.push(`--- ${proc.name} ${file}\n${text.slice(-lines).join('\n')}`);
        } catch {
          // no such log
        }
      }
    }
    return out.join('\n');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    // Brokers first, so they do not spend the grace period re-registering.
    const procs = [...this.procs.values()].reverse();
    await Promise.all(procs.map((p) => stopProcess(p, 'SIGTERM', 3000)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private spawnServer(name: string, mainClass: string, confFile: string): void {
    const home = join(this.dir, 'home', name);
    mkdirSync(home, { recursive: true });
    const logFile = join(this.dir, `${name}.out`);
    const fd = openSync(logFile, 'a');
    const child = spawn(
      javaBinary(),
      [
        ...JAVA17_OPENS,
        ...LOOPBACK_GUARDS,
        ...SERVER_JVM,
        ...this.jvmExtra,
        ...(mainClass.endsWith('.BrokerStartup') ? this.brokerJvm : []),
        `-Duser.home=${home}`,
        `-Drocketmq.home.dir=${this.dir}`,
        '-cp',
        classpath(this.version),
        mainClass,
        '-c',
        confFile,
      ],
      { cwd: this.dir, stdio: ['ignore', fd, fd], env: { ...process.env, ROCKETMQ_HOME: this.dir } },
    );
    closeSync(fd);
    track(child.pid);
    let resolveExit: () => void = () => undefined;
    const exited = new Promise<void>((r) => (resolveExit = r));
    const proc: Proc = { name, child, logFile, exited, alive: true };
    child.on('exit', () => {
      proc.alive = false;
      untrack(child.pid);
      resolveExit();
    });
    child.on('error', (e) => {
      proc.alive = false;
      writeFileSync(logFile, `spawn error: ${e.message}\n`, { flag: 'a' });
      resolveExit();
    });
    this.procs.set(name, proc);
  }

  private async waitFor(what: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
    while (Date.now() < deadline) {
      if (await check()) return;
      for (const p of this.procs.values()) {
        if (!p.alive)
          throw new Error(`real cluster ${this.version}: ${p.name} exited while waiting for ${what}`);
      }
      await sleep(250);
    }
    throw new Error(`real cluster ${this.version}: timed out waiting for ${what}`);
  }
}

async function stopProcess(proc: Proc, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  const pid = proc.child.pid;
  if (!proc.alive || pid === undefined) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const abort = new AbortController();
  const timer = sleep(graceMs, 'timeout' as const, { signal: abort.signal }).catch(() => 'exited' as const);
  const outcome = await Promise.race([proc.exited.then(() => 'exited' as const), timer]);
  abort.abort();
  if (outcome === 'timeout' && proc.alive) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
    await proc.exited;
  }
}
