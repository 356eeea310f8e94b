/**
 * The cluster a chaos run breaks: an embedded one (a NameServer and brokers, each its own
 * process, on fixed ports so a restart comes back where clients look) or a real one given by its
 * NameServer and broker PIDs. Each says which fault kinds it can inject and injects them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Deadline } from '../../client/deadline.js';
import { NamesrvClient } from '../../client/namesrv-client.js';
import { silentLogger } from '../../observability/logger.js';
import { RequestCode, ResponseCode } from '../../protocol/codes.js';
import { DEFAULT_COMMAND_DEFAULTS } from '../../protocol/command.js';
import { MASTER_ID } from '../../protocol/headers/route.js';
import { ConnectionPool } from '../../remoting/pool.js';
import { SEND_REQUEST_CODES, type FaultSpec } from '../../server/broker/faults.js';
import { RemoteFaultController } from '../demo/faults.js';
import { ChildProc, freePort, isAlive, processImage, respawn, type ProcessImage } from './processes.js';
import { CLUSTER_FAULT_KINDS, type ChaosFault, type ClusterFaultKind } from './schedule.js';
import type { ServerProcessArgs } from './server-process.js';
import { BROKER_NODE_FLAGS } from '../../server/broker-heap.js';

const SERVER_ENTRY = fileURLToPath(new URL('./server-process.js', import.meta.url));

export interface ChaosCluster {
  readonly namesrvAddr: string;
  /** Targets of broker faults. */
  readonly brokers: readonly string[];
  readonly kinds: readonly ClusterFaultKind[];
  /** Processes whose memory the run bounds (name → PID now). */
  memoryTargets(): Array<[string, number | undefined]>;
  inject(fault: ChaosFault): Promise<void>;
  clear(fault: ChaosFault): Promise<void>;
  stop(): Promise<void>;
}

/** The injected faults that are a broker-side fault spec (request code 9901). */
export function specForFault(kind: ClusterFaultKind): FaultSpec | undefined {
  switch (kind) {
    case 'broker-latency':
      return { latencyMs: [1200, 4000], requestCodes: [...SEND_REQUEST_CODES, RequestCode.PULL_MESSAGE] };
    case 'broker-drop':
      return { dropConnections: true };
    case 'broker-hang':
      return { hang: true };
    case 'broker-error':
      return { errorCode: ResponseCode.SYSTEM_BUSY, errorRate: 0.5 };
    case 'broker-disk-full':
      return { diskFull: true };
    default:
      return undefined;
  }
}

export interface EmbeddedChaosClusterOptions {
  brokers: number;
  topic: string;
  queues: number;
  /** A server process exited without being told to. */
  onCrash: (text: string) => void;
}

export class EmbeddedChaosCluster implements ChaosCluster {
  readonly kinds: readonly ClusterFaultKind[] = CLUSTER_FAULT_KINDS;
  private readonly pool = new ConnectionPool();
  private readonly faults: RemoteFaultController;

  private constructor(
    private readonly dir: string,
    private readonly namesrv: ChildProc,
    private readonly brokerProcs: ReadonlyMap<string, ChildProc>,
    readonly namesrvAddr: string,
    brokerAddrs: ReadonlyMap<string, string>,
  ) {
    this.faults = new RemoteFaultController(this.pool, brokerAddrs);
  }

  get brokers(): string[] {
    return [...this.brokerProcs.keys()];
  }

  static async start(options: EmbeddedChaosClusterOptions): Promise<EmbeddedChaosCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'rocketmq-ts-chaos-'));
    const unexpected = (p: ChildProc, detail: string): void =>
      options.onCrash(`${p.name} exited unexpectedly (${detail.split('\n')[0] ?? ''})`);
    const nsArgs: ServerProcessArgs = { role: 'namesrv', port: await freePort() };
    const namesrv = new ChildProc('namesrv', SERVER_ENTRY, nsArgs, undefined, unexpected);
    const procs = new Map<string, ChildProc>();
    try {
      const namesrvAddr = await namesrv.start();
      const addrs = new Map<string, string>();
      for (let i = 0; i < options.brokers; i++) {
        const name = `broker-${String.fromCharCode(97 + i)}`;
        const args: ServerProcessArgs = {
          role: 'broker',
          name,
          port: await freePort(),
          namesrvAddr,
          dataDir: join(dir, name),
          topic: options.topic,
          queues: options.queues,
        };
        procs.set(name, new ChildProc(name, SERVER_ENTRY, args, undefined, unexpected, BROKER_NODE_FLAGS));
      }
      await Promise.all(
        [...procs].map(async ([name, p]) => {
          addrs.set(name, await p.start());
        }),
      );
      return new EmbeddedChaosCluster(dir, namesrv, procs, namesrvAddr, addrs);
    } catch (err) {
      await Promise.all([...procs.values(), namesrv].map((p) => p.kill()));
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  memoryTargets(): Array<[string, number | undefined]> {
    return [
      ['namesrv', this.namesrv.pid],
      ...[...this.brokerProcs].map(([n, p]): [string, number | undefined] => [n, p.pid]),
    ];
  }

  private proc(name: string): ChildProc {
    const p = name === 'namesrv' ? this.namesrv : this.brokerProcs.get(name);
    if (!p) throw new Error(`no process ${name}`);
    return p;
  }

  async inject(fault: ChaosFault): Promise<void> {
    const kind = fault.kind as ClusterFaultKind;
    const spec = specForFault(kind);
    if (spec) return this.faults.send(fault.target, spec);
    if (kind === 'broker-pause') this.proc(fault.target).signal('SIGSTOP');
    else await this.proc(fault.target).kill();
  }

  async clear(fault: ChaosFault): Promise<void> {
    const kind = fault.kind as ClusterFaultKind;
    if (specForFault(kind)) return this.faults.send(fault.target, undefined);
    const p = this.proc(fault.target);
    if (kind === 'broker-pause') p.signal('SIGCONT');
    else await p.start();
  }

  async stop(): Promise<void> {
    await this.pool.close().catch(() => {});
    await Promise.all([...this.brokerProcs.values()].map((p) => p.stop()));
    await this.namesrv.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * A running cluster (Apache RocketMQ, say) known by its NameServer and its brokers' PIDs. A
 * killed broker is started again from its /proc image (same command line, directory and
 * environment) and awaited until the NameServer lists it again; the new PIDs are in `pids`.
 */
export class RealChaosCluster implements ChaosCluster {
  readonly kinds: readonly ClusterFaultKind[] = ['broker-kill', 'broker-pause'];
  private readonly pidOf = new Map<string, number>();
  private readonly images = new Map<string, ProcessImage>();
  private readonly pool = new ConnectionPool();
  private readonly namesrvClient: NamesrvClient;
  private readonly expectedBrokers: number;

  private constructor(
    readonly namesrvAddr: string,
    pids: readonly number[],
    private readonly logDir: string,
    expectedBrokers: number,
  ) {
    pids.forEach((pid, i) => this.pidOf.set(`broker ${i + 1} (pid ${pid})`, pid));
    this.namesrvClient = new NamesrvClient(
      namesrvAddr.split(';'),
      this.pool,
      DEFAULT_COMMAND_DEFAULTS,
      silentLogger,
      0,
    );
    this.expectedBrokers = expectedBrokers;
  }

  static async connect(namesrvAddr: string, pids: readonly number[]): Promise<RealChaosCluster> {
    for (const pid of pids) if (!isAlive(pid)) throw new Error(`broker pid ${pid} is not running`);
    const logDir = await mkdtemp(join(tmpdir(), 'rocketmq-ts-chaos-real-'));
    const probe = new RealChaosCluster(namesrvAddr, pids, logDir, 0);
    const registered = await probe.registeredMasters().finally(() => probe.pool.close());
    return new RealChaosCluster(namesrvAddr, pids, logDir, registered);
  }

  get brokers(): string[] {
    return [...this.pidOf.keys()];
  }

  /** The brokers' PIDs now (restarted ones have new PIDs). */
  get pids(): number[] {
    return [...this.pidOf.values()];
  }

  memoryTargets(): Array<[string, number | undefined]> {
    return []; // a real broker's memory is its JVM's settings, not ours to bound
  }

  async inject(fault: ChaosFault): Promise<void> {
    const pid = this.pidOf.get(fault.target)!;
    if (fault.kind === 'broker-pause') {
      process.kill(pid, 'SIGSTOP');
      return;
    }
    this.images.set(fault.target, processImage(pid));
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await sleep(50);
  }

  async clear(fault: ChaosFault): Promise<void> {
    if (fault.kind === 'broker-pause') {
      process.kill(this.pidOf.get(fault.target)!, 'SIGCONT');
      return;
    }
    const image = this.images.get(fault.target)!;
    const pid = respawn(image, join(this.logDir, `restart-${fault.id}.log`));
    this.pidOf.set(fault.target, pid);
    const deadline = Date.now() + 120_000;
    // the NameServer drops a killed broker once its connection closes; wait until it is back
    await sleep(2000);
    while ((await this.registeredMasters().catch(() => 0)) < this.expectedBrokers) {
      if (!isAlive(pid)) throw new Error(`restarted broker (pid ${pid}) exited; log in ${this.logDir}`);
      if (Date.now() > deadline)
        throw new Error(`restarted broker (pid ${pid}) did not register within 120 s`);
      await sleep(500);
    }
  }

  private async registeredMasters(): Promise<number> {
    const info = await this.namesrvClient.getClusterInfo(Deadline.after(3000));
    return Object.values(info.brokerAddrTable).filter((b) => b.brokerAddrs[MASTER_ID] !== undefined).length;
  }

  async stop(): Promise<void> {
    await this.pool.close().catch(() => {});
    await rm(this.logDir, { recursive: true, force: true });
  }
}
