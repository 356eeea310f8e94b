/**
 * One chaos run: a cluster (embedded processes, or a real one), producers and two consumer groups
 * (concurrent and orderly) as their own processes under steady load, the seeded fault schedule,
 * then everything read back and checked (verify.ts).
 */
import { fileURLToPath } from 'node:url';
import { LOCK_MAX_LIVE_MS } from '../../server/broker/rebalance-locks.js';
import { DemoConsumerGroup, type ReportedDelivery } from '../demo/consumer-group.js';
import type { ConsumerProcessArgs } from '../demo/consumer-process.js';
import { EmbeddedChaosCluster, RealChaosCluster, type ChaosCluster } from './cluster.js';
import { ChildProc, MemoryWatch } from './processes.js';
import type { ProducerProcessArgs } from './producer-process.js';
import { buildChaosSchedule, type ChaosFault } from './schedule.js';
import { verifyChaos, type AckRecord, type ChaosVerification, type GroupReport } from './verify.js';

const PRODUCER_ENTRY = fileURLToPath(new URL('./producer-process.js', import.meta.url));
const RUN_PROPERTY = 'CHAOS_RUN';
const SEQ_PROPERTY = 'CHAOS_SEQ';
/** How long the read-back waits with no new delivery before it counts what is missing as lost. */
const READ_BACK_MS = 30_000;

export interface ChaosOptions {
  durationMs: number;
  seed: number;
  /** Messages per second over all producers. */
  ratePerSec: number;
  producers: number;
  /** Members of the concurrent group; the orderly group has two. */
  consumers: number;
  orderlyConsumers: number;
  brokers: number;
  sendTimeoutMs: number;
  memoryBoundMiB: number;
  /** A running cluster instead of an embedded one, with its brokers' PIDs. */
  namesrv?: string | undefined;
  brokerPids?: readonly number[] | undefined;
  /** Progress and the event log as it happens. */
  onInfo?: (text: string) => void;
}

export interface ChaosEvent {
  readonly atMs: number;
  readonly text: string;
}

export interface ChaosSample {
  readonly tMs: number;
  readonly acked: number;
  readonly failed: number;
  /** Distinct messages consumed so far, per group. */
  readonly consumed: readonly number[];
}

export interface ChaosResult {
  readonly seed: number;
  readonly durationMs: number;
  readonly ratePerSec: number;
  readonly topic: string;
  readonly cluster: 'embedded' | 'real';
  readonly brokers: readonly string[];
  readonly faults: readonly ChaosFault[];
  readonly events: readonly ChaosEvent[];
  readonly samples: readonly ChaosSample[];
  readonly groupNames: readonly string[];
  readonly memory: ReadonlyArray<{ readonly name: string; readonly peakBytes: number }>;
  readonly memoryBoundMiB: number;
  readonly verification: ChaosVerification;
  /** The most frequent reasons sends failed, with counts. */
  readonly sendErrors: ReadonlyArray<{ readonly message: string; readonly count: number }>;
  /** Final broker PIDs of a real cluster (restarted brokers have new ones). */
  readonly brokerPids?: readonly number[];
}

interface ProducerState {
  proc: ChildProc;
  settled: number;
  done?: { issued: number; skipped: number; maxLoopDelayMs: number };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const runId = `${Date.now().toString(36)}${options.seed.toString(36)}`;
  const topic = `chaos-${runId}`;
  const events: Array<{ atMs: number; text: string }> = [];
  let t0 = Date.now();
  const log = (text: string): void => {
    const e = { atMs: Date.now() - t0, text };
    events.push(e);
    options.onInfo?.(`[${(e.atMs / 1000).toFixed(1).padStart(6)} s] ${text}`);
  };
  const crashes: string[] = [];
  const crash = (text: string): void => {
    crashes.push(text);
    log(text);
  };

  let cluster: ChaosCluster | undefined;
  let real: RealChaosCluster | undefined;
  const groups: DemoConsumerGroup[] = [];
  const producers: ProducerState[] = [];
  let memory: MemoryWatch | undefined;
  try {
    if (options.namesrv) {
      real = await RealChaosCluster.connect(options.namesrv, options.brokerPids ?? []);
      cluster = real;
      log(`real cluster: NameServer ${options.namesrv}, brokers ${real.brokers.join(', ')}`);
    } else {
      cluster = await EmbeddedChaosCluster.start({
        brokers: options.brokers,
        topic,
        queues: 4,
        onCrash: crash,
      });
      log(`embedded cluster: NameServer ${cluster.namesrvAddr}, ${cluster.brokers.join(', ')} (sync flush)`);
    }
    const c = cluster;

    const acks = new Map<number, AckRecord>();
    const failures = new Map<number, number>();
    const hedged = new Set<string>();
    const sendErrors = new Map<string, number>();
    const streams: Array<GroupReport['stream'][number][]> = [];
    const groupSpecs = [
      { name: 'consumer', size: options.consumers, orderly: false },
      { name: 'orderly', size: options.orderlyConsumers, orderly: true },
    ].filter((g) => g.size > 0);
    for (const spec of groupSpecs) {
      const stream: Array<{ seq: number; delivery: ReportedDelivery }> = [];
      streams.push(stream);
      const args: Omit<ConsumerProcessArgs, 'instanceName'> = {
        namesrvAddr: c.namesrvAddr,
        topic,
        group: `chaos-${spec.name}-${runId}`,
        runProperty: RUN_PROPERTY,
        runId,
        seqProperty: SEQ_PROPERTY,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        consumeTimestamp: '20000101000000',
        orderly: spec.orderly,
      };
      groups.push(
        new DemoConsumerGroup(args, spec.size, {
          name: spec.name,
          onDelivery: (seq, delivery) => stream.push({ seq, delivery }),
        }),
      );
    }
    await Promise.all(groups.map((g) => g.start()));
    log(`consumer groups started: ${groupSpecs.map((g) => `${g.name} ×${g.size}`).join(', ')}`);

    const perProducer = options.ratePerSec / options.producers;
    for (let i = 0; i < options.producers; i++) {
      const args: ProducerProcessArgs = {
        namesrvAddr: c.namesrvAddr,
        topic,
        group: `chaos-producer-${runId}`,
        seed: options.seed,
        index: i,
        producers: options.producers,
        ratePerSec: perProducer,
        maxInFlight: 64,
        durationMs: options.durationMs,
        sendTimeoutMs: options.sendTimeoutMs,
        runProperty: RUN_PROPERTY,
        runId,
        seqProperty: SEQ_PROPERTY,
      };
      const state: ProducerState = {
        proc: new ChildProc(
          `producer ${i + 1}`,
          PRODUCER_ENTRY,
          args,
          (line) => {
            const f = line.split(' ');
            if (f[0] === 'A') {
              state.settled++;
              acks.set(Number(f[1]), {
                msgId: f[2]!,
                brokerName: f[3]!,
                queueId: Number(f[4]),
                queueOffset: Number(f[5]),
                elapsedMs: Number(f[6]),
              });
            } else if (f[0] === 'F') {
              state.settled++;
              failures.set(Number(f[1]), Number(f[2]));
              const why = f.slice(3).join(' ');
              sendErrors.set(why, (sendErrors.get(why) ?? 0) + 1);
            } else if (f[0] === 'H') hedged.add(f[1] ?? '');
            else if (f[0] === 'done')
              state.done = { issued: Number(f[1]), skipped: Number(f[2]), maxLoopDelayMs: Number(f[3]) };
          },
          // a producer ends by itself after its duration; a crash shows as a missing `done`
          (p, detail) => {
            if (!detail.startsWith('exit 0')) crash(`${p.name} exited: ${detail.split('\n')[0] ?? ''}`);
          },
        ),
        settled: 0,
      };
      producers.push(state);
    }

    memory = new MemoryWatch(() => [
      ...c.memoryTargets(),
      ...producers.map((p): [string, number | undefined] => [p.proc.name, p.proc.pid]),
      ...groups.flatMap((g, gi) =>
        g.pids().map((pid, i): [string, number | undefined] => [`${groupSpecs[gi]!.name} ${i + 1}`, pid]),
      ),
    ]);

    const consumerTargets = groupSpecs.flatMap((g) =>
      Array.from({ length: g.size }, (_, i) => `${g.name} ${i + 1}`),
    );
    const schedule = buildChaosSchedule({
      durationMs: options.durationMs,
      seed: options.seed,
      brokers: c.brokers,
      consumers: consumerTargets,
      kinds: c.kinds,
    });
    log(`seed ${options.seed}: ${schedule.length} faults scheduled over ${options.durationMs / 1000} s`);

    await Promise.all(producers.map((p) => p.proc.start()));
    const start = Date.now();
    // event times count from the start of the load, as the fault schedule does (set-up: negative)
    for (const e of events) e.atMs -= start - t0;
    t0 = start;
    log(`${options.producers} producers sending ${options.ratePerSec} msgs/s in all`);

    const samples: ChaosSample[] = [];
    // distinct messages consumed per group, for the lag chart
    const distinct = groups.map(() => new Set<number>());
    const seen = groups.map(() => 0);
    const sample = (): void => {
      streams.forEach((stream, gi) => {
        for (; seen[gi]! < stream.length; seen[gi]!++) distinct[gi]!.add(stream[seen[gi]!]!.seq);
      });
      samples.push({
        tMs: Date.now() - start,
        acked: acks.size,
        failed: failures.size,
        consumed: distinct.map((s) => s.size),
      });
    };
    const sampler = setInterval(sample, 1000);

    // the fault lanes: cluster faults one at a time, consumer kills on their own chain
    const active = new Set<ChaosFault>();
    let clusterChain: Promise<void> = Promise.resolve();
    let consumerChain: Promise<void> = Promise.resolve();
    const member = (target: string): { group: DemoConsumerGroup; index: number } => {
      const [name, n] = target.split(' ');
      return { group: groups[groupSpecs.findIndex((g) => g.name === name)]!, index: Number(n) - 1 };
    };
    const step = (fault: ChaosFault, begin: boolean): Promise<void> => {
      const what = `fault ${fault.id} ${fault.kind} on ${fault.target}`;
      const action = async (): Promise<void> => {
        if (fault.kind === 'consumer-kill') {
          const m = member(fault.target);
          await (begin ? m.group.kill(m.index) : m.group.restart(m.index));
        } else await (begin ? c.inject(fault) : c.clear(fault));
      };
      return action().then(
        () => {
          if (begin) active.add(fault);
          else active.delete(fault);
          log(`${begin ? 'start' : 'end'} ${what}`);
        },
        (err: unknown) =>
          log(`${begin ? 'starting' : 'ending'} ${what} failed: ${String(err).split('\n')[0]}`),
      );
    };
    const timers: NodeJS.Timeout[] = [];
    for (const fault of schedule) {
      const queue = (begin: boolean): void => {
        if (fault.kind === 'consumer-kill') consumerChain = consumerChain.then(() => step(fault, begin));
        else clusterChain = clusterChain.then(() => step(fault, begin));
      };
      timers.push(setTimeout(() => queue(true), fault.startMs));
      timers.push(setTimeout(() => queue(false), fault.endMs));
    }

    // producers end by themselves; one whose sends never settle is a hang
    const limit = options.durationMs + options.sendTimeoutMs + 30_000;
    await Promise.all(
      producers.map(async (p) => {
        const timer = setTimeout(() => {
          log(`${p.proc.name} did not finish within ${limit / 1000} s: killed`);
          void p.proc.kill();
        }, limit);
        await p.proc.exited();
        clearTimeout(timer);
      }),
    );
    for (const t of timers) clearTimeout(t);
    log(`sending over: ${acks.size} acknowledged, ${failures.size} failed`);
    // end whatever fault is still on (a slow step can push the last end past the run)
    await Promise.all([clusterChain, consumerChain]);
    for (const fault of [...active]) await step(fault, false);

    log('reading back: waiting until both groups consumed every acknowledged message');
    // An orderly member SIGKILLed while holding queue locks leaves them on a Java broker until they
    // lapse, LOCK_MAX_LIVE_MS after its last renewal (the embedded broker drops them when the
    // client's last connection closes): until then no survivor may consume those queues. Waiting
    // less could not tell a lost message from a locked one.
    for (const [gi, g] of groups.entries())
      await g.waitForAll(acks, groupSpecs[gi]!.orderly ? READ_BACK_MS + LOCK_MAX_LIVE_MS : READ_BACK_MS);
    clearInterval(sampler);
    sample();
    await Promise.all(groups.map((g) => g.stop()));
    for (const g of groups) for (const e of g.events) log(e);
    const peaks = memory.stop();

    const verification = verifyChaos({
      seed: options.seed,
      acks,
      failures,
      hedgedMsgIds: hedged,
      groups: groups.map((g, gi) => ({
        name: groupSpecs[gi]!.name,
        orderly: groupSpecs[gi]!.orderly,
        deliveries: g.deliveriesBySeq,
        stream: streams[gi]!,
        killed: g.killedIncarnations,
      })),
      sendTimeoutMs: options.sendTimeoutMs,
      settleSlackMs: SETTLE_SLACK_MS + Math.max(0, ...producers.map((p) => p.done?.maxLoopDelayMs ?? 0)),
      unsettled: producers.map((p) => ({
        producer: p.proc.name,
        // no `done` line: it was killed with sends still open
        count: p.done ? p.done.issued - p.settled : 1,
      })),
      crashes: [...crashes, ...groups.flatMap((g) => g.crashes)],
      memory: peaks,
      memoryBoundBytes: options.memoryBoundMiB * 1048576,
    });
    return {
      seed: options.seed,
      durationMs: options.durationMs,
      ratePerSec: options.ratePerSec,
      topic,
      cluster: real ? 'real' : 'embedded',
      brokers: c.brokers,
      faults: schedule,
      events,
      samples,
      groupNames: groupSpecs.map((g) => g.name),
      memory: peaks,
      memoryBoundMiB: options.memoryBoundMiB,
      verification,
      sendErrors: [...sendErrors]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([message, count]) => ({ message, count })),
      ...(real ? { brokerPids: real.pids } : {}),
    };
  } finally {
    memory?.stop();
    await Promise.all(producers.map((p) => p.proc.kill()));
    await Promise.all(groups.map((g) => g.stop().catch(() => {})));
    await cluster?.stop().catch(() => {});
  }
}

/**
 * A send may settle this much after its timeout, plus the longest event-loop delay its producer
 * measured (a process starved of CPU fires its timers late, whatever the client does).
 */
export const SETTLE_SLACK_MS = 1000;
