/**
 * Starts real Apache RocketMQ NameServers and brokers (one cluster, `DefaultCluster`) as `java`
 * child processes, loopback only, with the store in a temporary directory. `stop()` ends every
 * process by PID (SIGTERM, then SIGKILL) and removes the directory.
 *
 * Plain masters by name (`brokers`), or any topology (`nodes`): masters with slaves
 * (ASYNC_MASTER/SYNC_MASTER, brokerId 0/1) and DLedger (Raft) groups, whose `dLegerPeers` the
 * harness fills from the group's nodes. Every process can be killed, paused (SIGSTOP) and
 * restarted by its node name; interop-test/topologies/topology.ts builds the issue-16 topologies
 * and their failover helpers on top of this.
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
import { PROXY_MAIN_CLASS, proxyConfigJson, proxyReady, type ProxyOptions } from './real-proxy.js';

export type BrokerRole = 'ASYNC_MASTER' | 'SYNC_MASTER' | 'SLAVE';

/** One broker process of a topology. */
export interface BrokerNode {
  /** Process name, unique in the cluster (`broker()`, `kill()`, `pause()`, `restart()` take it). */
  node: string;
  brokerName: string;
  /** Ignored by DLedger nodes (the elected leader registers as 0). @default 0 */
  brokerId?: number;
  /** Ignored by DLedger nodes. @default 'ASYNC_MASTER' for brokerId 0, else 'SLAVE' */
  brokerRole?: BrokerRole;
  /**
   * DLedger member id (`n0`, `n1`, ...): the node runs `enableDLegerCommitLog=true` in the
   * group named after its brokerName, with `dLegerPeers` made of every node of that group.
   */
  dledgerSelfId?: string;
  /** Extra broker.conf lines of this node (after `brokerConfig`). */
  config?: Record<string, string | number | boolean>;
}

export interface RealClusterOptions {
  /** RocketMQ version (a directory under interop/target). */
  version: string;
  /** Plain masters by name (ignored when `nodes` is given). @default ['broker-a', 'broker-b'] */
  brokers?: string[];
  /** Any topology: masters, slaves, DLedger groups. Overrides `brokers`. */
  nodes?: BrokerNode[];
  /** How many NameServers (processes `namesrv`, `namesrv-2`, ...). @default 1 */
  namesrvs?: number;
  /** Heap of every broker JVM (MiB); NameServers get half (at most 256). @default 512 */
  heapMb?: number;
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
  /**
   * [5.x] Also run a `rocketmq-proxy` (process `proxy`) in cluster mode in front of the brokers,
   * advertising 127.0.0.1 (interop-test/real-proxy.ts); clients reach it at `proxyAddr`.
   */
  proxy?: boolean | ProxyOptions;
}

export interface RealBroker {
  /** Node (process) name; the broker name for clusters started with `brokers`. */
  readonly name: string;
  readonly brokerName: string;
  /** DLedger member id, when the node is one. */
  readonly dledgerSelfId: string | undefined;
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
  paused: boolean;
  mainClass: string;
  /** Arguments after the main class (`-c <conf>`; the Proxy's `-pc <json> -pm cluster`). */
  mainArgs: readonly string[];
  heapMb: number;
}

const SERVER_JVM: readonly string[] = Object.freeze([
  '-server',
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

/** An ephemeral port not handed out before in this cluster. */
async function freePort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const p = await ephemeralPort();
    if (taken.has(p)) continue;
    taken.add(p);
    return p;
  }
  throw new Error('real cluster: no free port found');
}

interface NodeState {
  readonly spec: BrokerNode;
  readonly port: number;
}

/** Broker name → brokerId → address, as a NameServer lists it. */
export type BrokerAddrTable = Record<string, Record<string, string>>;

export class RealCluster {
  readonly version: string;
  /** Every NameServer, `;`-separated (what clients and the Java driver take). */
  readonly namesrvAddr: string;
  readonly namesrvAddrs: readonly string[];
  private readonly dir: string;
  private readonly procs = new Map<string, Proc>();
  private readonly nodes = new Map<string, NodeState>();
  private readonly jvmExtra: readonly string[];
  /** Processes killed by `kill()`: their exit is no start failure while waiting for others. */
  private readonly killedOnPurpose = new Set<string>();
  private brokerJvm: readonly string[] = [];
  private proxyPorts: { remoting: number; grpc: number } | undefined;
  private stopped = false;

  private constructor(
    version: string,
    dir: string,
    namesrvAddrs: readonly string[],
    jvmExtra: readonly string[],
  ) {
    this.version = version;
    this.dir = dir;
    this.namesrvAddrs = Object.freeze([...namesrvAddrs]);
    this.namesrvAddr = namesrvAddrs.join(';');
    this.jvmExtra = jvmExtra;
  }

  static async start(options: RealClusterOptions): Promise<RealCluster> {
    prepareInterop();
    const nodes: BrokerNode[] =
      options.nodes ?? (options.brokers ?? ['broker-a', 'broker-b']).map((n) => ({ node: n, brokerName: n }));
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    const dir = mkdtempSync(join(tmpdir(), `rmq-real-${options.version}-`));
    mkdirSync(join(dir, 'conf'));
    for (const n of ['namesrv', 'broker', 'tools'])
      writeFileSync(join(dir, 'conf', `logback_${n}.xml`), logbackXml(n));
    for (const [name, text] of Object.entries(options.confFiles ?? {}))
      writeFileSync(join(dir, 'conf', name), text);

    const taken = new Set<number>();
    const nsPorts: number[] = [];
    for (let i = 0; i < (options.namesrvs ?? 1); i++) nsPorts.push(await freePort(taken));
    const jvmExtra = options.quickJit === false ? [] : ['-XX:TieredStopAtLevel=1'];
    const heapMb = options.heapMb ?? 512;
    const cluster = new RealCluster(
      options.version,
      dir,
      nsPorts.map((p) => `127.0.0.1:${p}`),
      jvmExtra,
    );
    cluster.brokerJvm = options.brokerJvmArgs ?? [];
    try {
      nsPorts.forEach((port, i) => {
        const name = namesrvNodeName(i);
        writeFileSync(
          join(dir, `${name}.conf`),
          toConf({
            listenPort: port,
            bindAddress: '127.0.0.1',
            kvConfigPath: join(dir, name, 'kvConfig.json'),
          }),
        );
        cluster.spawnServer(
          name,
          'org.apache.rocketmq.namesrv.NamesrvStartup',
          ['-c', join(dir, `${name}.conf`)],
          Math.min(256, Math.ceil(heapMb / 2)),
        );
      });
      await cluster.waitFor('the name servers', deadline, async () =>
        (await Promise.all(cluster.namesrvAddrs.map((a) => canConnect(a)))).every(Boolean),
      );

      for (const spec of nodes) cluster.nodes.set(spec.node, { spec, port: await brokerPort(taken) });
      const dledgerPeers = new Map<string, string[]>();
      for (const spec of nodes) {
        if (spec.dledgerSelfId === undefined) continue;
        const peers = dledgerPeers.get(spec.brokerName) ?? [];
        peers.push(`${spec.dledgerSelfId}-127.0.0.1:${await freePort(taken)}`);
        dledgerPeers.set(spec.brokerName, peers);
      }
      for (const { spec, port } of cluster.nodes.values()) {
        const store = join(dir, 'store', spec.node);
        const brokerId = spec.brokerId ?? 0;
        const dledger: Record<string, string | number | boolean> =
          spec.dledgerSelfId === undefined
            ? {}
            : {
                enableDLegerCommitLog: true,
                dLegerGroup: spec.brokerName,
                dLegerPeers: (dledgerPeers.get(spec.brokerName) ?? []).join(';'),
                dLegerSelfId: spec.dledgerSelfId,
              };
        writeFileSync(
          join(dir, `${spec.node}.conf`),
          toConf({
            brokerClusterName: 'DefaultCluster',
            brokerName: spec.brokerName,
            brokerId,
            brokerRole: spec.brokerRole ?? (brokerId === 0 ? 'ASYNC_MASTER' : 'SLAVE'),
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
            ...dledger,
            ...options.brokerConfig,
            ...spec.config,
          }),
        );
        cluster.spawnServer(
          spec.node,
          'org.apache.rocketmq.broker.BrokerStartup',
          ['-c', join(dir, `${spec.node}.conf`)],
          heapMb,
        );
      }
      await cluster.waitFor('brokers to register', deadline, async () => {
        const table = await cluster.brokerAddrTable();
        return [...cluster.nodes.keys()].every((n) => cluster.isRegistered(table, n));
      });
      if (options.proxy !== undefined && options.proxy !== false) {
        const proxy = options.proxy === true ? {} : options.proxy;
        cluster.proxyPorts = { remoting: await freePort(taken), grpc: await freePort(taken) };
        const file = join(dir, 'rmq-proxy.json');
        writeFileSync(
          file,
          proxyConfigJson({ ...cluster.proxyPorts, namesrvAddr: cluster.namesrvAddr, options: proxy }),
        );
        cluster.spawnServer(
          PROXY_NODE,
          PROXY_MAIN_CLASS,
          ['-pc', file, '-pm', 'cluster'],
          proxy.heapMb ?? Math.min(512, heapMb),
        );
        await cluster.waitFor('the proxy', deadline, () => proxyReady(cluster.proxyAddr));
      }
      return cluster;
    } catch (err) {
      const logs = cluster.logTails();
      await cluster.stop();
      throw new Error(`${(err as Error).message}\n${logs}`);
    }
  }

  /**
   * GET_BROKER_CLUSTER_INFO: broker name → brokerId → address. From NameServer `namesrv` (an index
   * into `namesrvAddrs`) when given, else the fullest answer of the running ones (a NameServer
   * just restarted knows few brokers until they re-register); empty when none answers.
   */
  async brokerAddrTable(namesrv?: number): Promise<BrokerAddrTable> {
    let best: BrokerAddrTable = {};
    let bestSize = -1;
    for (const [i, addr] of this.namesrvAddrs.entries()) {
      if (namesrv !== undefined && i !== namesrv) continue;
      const proc = this.procs.get(namesrvNodeName(i));
      if (proc !== undefined && (!proc.alive || proc.paused)) continue;
      try {
        const res = await rawRequest(addr, RequestCode.GET_BROKER_CLUSTER_INFO);
        if (res.code !== 0 || res.body === undefined) continue;
        const info = parseClusterInfo(res.body);
        const out: BrokerAddrTable = {};
        let size = 0;
        for (const [name, bd] of Object.entries(info.brokerAddrTable)) {
          out[name] = { ...bd.brokerAddrs };
          size += Object.keys(bd.brokerAddrs).length;
        }
        if (size > bestSize) [best, bestSize] = [out, size];
      } catch {
        // not answering: try the next NameServer
      }
    }
    return best;
  }

  /** Broker names the name servers currently list with a master (brokerId 0). */
  async registeredBrokers(): Promise<string[]> {
    const table = await this.brokerAddrTable();
    return Object.keys(table).filter((n) => table[n]?.['0'] !== undefined);
  }

  /** True when `table` lists node `node` under its broker name (as master or slave). */
  isRegistered(table: BrokerAddrTable, node: string): boolean {
    const state = this.nodes.get(node);
    if (state === undefined) return false;
    const ids = table[state.spec.brokerName] ?? {};
    return Object.values(ids).includes(`127.0.0.1:${state.port}`);
  }

  /** Every broker node. */
  get brokers(): RealBroker[] {
    return [...this.nodes.keys()].map((n) => this.broker(n));
  }

  /** One broker node by node name. */
  broker(node: string): RealBroker {
    const state = this.nodes.get(node);
    if (state === undefined) throw new Error(`no broker ${node}`);
    const proc = this.procs.get(node);
    return {
      name: node,
      brokerName: state.spec.brokerName,
      dledgerSelfId: state.spec.dledgerSelfId,
      addr: `127.0.0.1:${state.port}`,
      listenPort: state.port,
      pid: proc?.child.pid,
      alive: proc?.alive ?? false,
    };
  }

  /** The node listening on `addr`, if it is one of ours. */
  nodeAt(addr: string): RealBroker | undefined {
    for (const b of this.brokers) if (b.addr === addr) return b;
    return undefined;
  }

  /** Process names of the NameServers, in `namesrvAddrs` order. */
  get namesrvNodes(): string[] {
    return this.namesrvAddrs.map((_, i) => namesrvNodeName(i));
  }

  /** Sends `signal` to one server process (e.g. SIGKILL a broker mid-run) and waits for it to exit. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const proc = this.procs.get(name);
    if (proc === undefined) throw new Error(`no process ${name}`);
    if (!proc.alive || proc.child.pid === undefined) return;
    this.killedOnPurpose.add(name);
    process.kill(proc.child.pid, signal);
    if (proc.paused && signal !== 'SIGKILL') process.kill(proc.child.pid, 'SIGCONT');
    await proc.exited;
  }

  /** SIGSTOP: the process keeps its sockets open but answers nothing (a hung broker or NameServer). */
  pause(name: string): void {
    const proc = this.procs.get(name);
    if (proc === undefined || !proc.alive || proc.child.pid === undefined)
      throw new Error(`no running process ${name}`);
    process.kill(proc.child.pid, 'SIGSTOP');
    proc.paused = true;
  }

  /** SIGCONT after `pause`. */
  resume(name: string): void {
    const proc = this.procs.get(name);
    if (proc === undefined || !proc.alive || proc.child.pid === undefined || !proc.paused) return;
    process.kill(proc.child.pid, 'SIGCONT');
    proc.paused = false;
  }

  /** Whether a process is running (paused counts as running). */
  isAlive(name: string): boolean {
    return this.procs.get(name)?.alive ?? false;
  }

  /**
   * Starts a stopped or killed process again on the same ports and store (a broker recovers its
   * commit log) and waits until it is back: a broker listed by the name servers under its broker
   * name, a NameServer accepting connections.
   */
  async restart(name: string, timeoutMs = 90_000): Promise<void> {
    const proc = this.procs.get(name);
    if (proc === undefined) throw new Error(`no process ${name}`);
    if (proc.alive) throw new Error(`process ${name} is still running`);
    this.spawnServer(name, proc.mainClass, proc.mainArgs, proc.heapMb);
    const deadline = Date.now() + timeoutMs;
    const nsIndex = this.namesrvNodes.indexOf(name);
    if (name === PROXY_NODE) {
      await this.waitFor('the proxy to serve again', deadline, () => proxyReady(this.proxyAddr));
    } else if (nsIndex >= 0) {
      const addr = this.namesrvAddrs[nsIndex]!;
      await this.waitFor(`${name} to accept connections`, deadline, () => canConnect(addr));
    } else {
      await this.waitFor(`${name} to register again`, deadline, async () =>
        this.isRegistered(await this.brokerAddrTable(), name),
      );
    }
  }

  /** The logback log of one process (`broker.log` or `namesrv.log`); empty when none yet. */
  serverLog(name: string): string {
    const logs = join(this.dir, 'home', name, 'logs');
    for (const file of ['broker.log', 'namesrv.log']) {
      try {
        return readFileSync(join(logs, file), 'utf8');
      } catch {
        // not this one
      }
    }
    return '';
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
        join(logs, 'rocketmqlogs', 'proxy.log'),
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

  /** [5.x] The Proxy's remoting endpoint (`namesrvAddr` of a client going through the Proxy). */
  get proxyAddr(): string {
    if (this.proxyPorts === undefined) throw new Error('this cluster runs no proxy (option `proxy`)');
    return `127.0.0.1:${this.proxyPorts.remoting}`;
  }

  /** [5.x] The Proxy's gRPC endpoint (Apache's gRPC clients, e.g. rocketmq-client-nodejs). */
  get proxyGrpcAddr(): string {
    if (this.proxyPorts === undefined) throw new Error('this cluster runs no proxy (option `proxy`)');
    return `127.0.0.1:${this.proxyPorts.grpc}`;
  }

  private spawnServer(name: string, mainClass: string, mainArgs: readonly string[], heapMb: number): void {
    this.killedOnPurpose.delete(name);
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
        `-Xms${heapMb}m`,
        `-Xmx${heapMb}m`,
        ...this.jvmExtra,
        ...(mainClass.endsWith('.BrokerStartup') ? this.brokerJvm : []),
        `-Duser.home=${home}`,
        `-Drocketmq.home.dir=${this.dir}`,
        '-cp',
        classpath(this.version),
        mainClass,
        ...mainArgs,
      ],
      { cwd: this.dir, stdio: ['ignore', fd, fd], env: { ...process.env, ROCKETMQ_HOME: this.dir } },
    );
    closeSync(fd);
    track(child.pid);
    let resolveExit: () => void = () => undefined;
    const exited = new Promise<void>((r) => (resolveExit = r));
    const proc: Proc = {
      name,
      child,
      logFile,
      exited,
      alive: true,
      paused: false,
      mainClass,
      mainArgs,
      heapMb,
    };
    child.on('exit', () => {
      proc.alive = false;
      proc.paused = false;
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
        if (!p.alive && !this.killedOnPurpose.has(p.name))
          throw new Error(`real cluster ${this.version}: ${p.name} exited while waiting for ${what}`);
      }
      await sleep(250);
    }
    throw new Error(`real cluster ${this.version}: timed out waiting for ${what}`);
  }
}

/** Process name of the Proxy (`kill`, `pause`, `restart` take it). */
export const PROXY_NODE = 'proxy';

function namesrvNodeName(index: number): string {
  return index === 0 ? 'namesrv' : `namesrv-${index + 1}`;
}

async function stopProcess(proc: Proc, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  const pid = proc.child.pid;
  if (!proc.alive || pid === undefined) return;
  try {
    process.kill(pid, signal);
    // A stopped process only acts on the signal once it runs again.
    if (proc.paused) process.kill(pid, 'SIGCONT');
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
