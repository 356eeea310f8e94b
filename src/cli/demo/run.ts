/**
 * One fault-tolerance run: cluster (embedded or remote), a paced producer and a consumer group of
 * two (one member killed and restarted), the fault schedule, live statistics, then the proof that
 * every acknowledged message was consumed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RocketMQError } from '../../errors.js';
import { Producer } from '../../producer/producer.js';
import type { LatencyFaultStrategyName } from '../../producer/options.js';
import { DEFAULT_COMMAND_DEFAULTS } from '../../protocol/command.js';
import { ConnectionPool } from '../../remoting/pool.js';
import { Deadline } from '../../client/deadline.js';
import { NamesrvClient } from '../../client/namesrv-client.js';
import { standaloneRouteLookup } from '../../client/route-lookup.js';
import { MASTER_ID } from '../../protocol/headers/route.js';
import { silentLogger } from '../../observability/logger.js';
import { EmbeddedCluster } from '../../server/cluster.js';
import { javaTimestamp } from '../commands/consume.js';
import { CONSUMER_KILL_AT, CONSUMER_RESTART_AT, DemoConsumerGroup } from './consumer-group.js';
import { EmbeddedFaultController, RemoteFaultController, type FaultController } from './faults.js';
import { PacedSender } from './pacer.js';
import { RunRecorder, starvation, timeToRecover, type LiveBrokerView } from './recorder.js';
import type { RecoveryFigure, RunResult, VerificationResult } from './result.js';
import { buildSchedule, phaseIndexAt, phasesUntil, type Phase } from './schedule.js';

export interface DemoRunOptions {
  strategy: LatencyFaultStrategyName;
  brokers: number;
  ratePerSec: number;
  durationMs: number;
  /** Use this NameServer instead of starting an embedded cluster. */
  namesrv?: string | undefined;
  /** Topic; default a fresh `rocketmq-ts-demo-<time>` (embedded) or `rocketmq-ts-demo` (remote). */
  topic?: string | undefined;
  /** Keep the embedded cluster's data directory (its path is reported in the notes). */
  keepData: boolean;
  /** Sends in flight at most. */
  maxInFlight: number;
  /** Message body size in bytes. */
  bodySize: number;
  /** Called about 4 times a second with the live state. */
  onTick?: (view: LiveView) => void;
  /** Aborting stops sending, skips the read-back and tears everything down. */
  signal?: AbortSignal;
  /** Progress messages (cluster started, verifying, …). */
  onInfo?: (message: string) => void;
  /** Called once the cluster, the producer and the consumers run (the dashboard attaches here). */
  onStarted?: (started: { namesrvAddr: string; producer: Producer }) => Promise<void> | void;
  /**
   * A cluster started by the caller with faults and a schedule of its own (the real DLedger
   * topology of `npm run demo:failover`); `namesrv` and `brokers` are then ignored.
   */
  topology?: DemoTopology | undefined;
}

/** A caller's cluster for one run: where it is, what to break and when. */
export interface DemoTopology {
  readonly namesrvAddr: string;
  /** The broker groups (the report's series). */
  readonly brokerNames: readonly string[];
  /** The group the faults hit. */
  readonly target: string;
  readonly faults: FaultController;
  readonly phases: readonly Phase[];
}

export interface LiveBroker extends LiveBrokerView {
  readonly isolated: boolean;
  /** ms until the isolation ends, when the strategy says. */
  readonly isolatedForMs: number | undefined;
}

export interface LiveView {
  readonly strategy: string;
  readonly elapsedMs: number;
  readonly durationMs: number;
  readonly phase: Phase;
  readonly brokers: readonly LiveBroker[];
  readonly acked: number;
  readonly failed: number;
  readonly skipped: number;
  readonly inFlight: number;
  readonly ratePerSec: number;
}

interface AckRecord {
  readonly msgId: string;
  readonly brokerName: string;
  readonly queueId: number;
}

const SEQ_PROPERTY = 'DEMO_SEQ';
const RUN_PROPERTY = 'DEMO_RUN';

export async function runDemo(options: DemoRunOptions): Promise<RunResult> {
  const info = options.onInfo ?? (() => {});
  const notes: string[] = [];
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  let cluster: EmbeddedCluster | undefined;
  let dataDir: string | undefined;
  let producer: Producer | undefined;
  let consumers: DemoConsumerGroup | undefined;
  const pool = new ConnectionPool();
  try {
    let namesrvAddr: string;
    let brokerNames: string[];
    let faults: FaultController | undefined;
    const topic = options.topic ?? (options.namesrv ? 'rocketmq-ts-demo' : `rocketmq-ts-demo-${runId}`);
    const topology = options.topology;
    if (topology) {
      namesrvAddr = topology.namesrvAddr;
      brokerNames = [...topology.brokerNames];
      faults = topology.faults;
    } else if (options.namesrv) {
      namesrvAddr = options.namesrv;
      const brokerAddrs = await brokersOf(pool, namesrvAddr, topic);
      brokerNames = [...brokerAddrs.keys()].sort();
      if (brokerNames.length === 0) throw new Error(`the NameServer at ${namesrvAddr} knows no broker`);
      const allow = await Promise.all(
        [...brokerAddrs.values()].map((addr) => RemoteFaultController.probe(pool, addr).catch(() => false)),
      );
      if (allow.every(Boolean)) faults = new RemoteFaultController(pool, brokerAddrs);
      else notes.push('The brokers do not accept fault injection (request code 9901): ran without faults.');
    } else {
      if (options.keepData) dataDir = await mkdtemp(join(tmpdir(), 'rocketmq-ts-demo-'));
      cluster = await EmbeddedCluster.start({
        brokers: options.brokers,
        faultInjection: true,
        ...(dataDir ? { dataDir } : {}),
      });
      namesrvAddr = cluster.namesrvAddr;
      brokerNames = cluster.brokers.map((b) => b.name);
      await cluster.createTopic(topic, 4);
      faults = new EmbeddedFaultController(cluster);
      info(
        `embedded cluster: NameServer ${namesrvAddr}, brokers ${cluster.brokers.map((b) => `${b.name}@${b.addr}`).join(', ')}`,
      );
      if (dataDir) notes.push(`Data kept in ${dataDir}.`);
    }
    const target =
      topology?.target ?? (faults ? brokerNames[Math.min(1, brokerNames.length - 1)] : undefined);
    const phases = topology
      ? [...topology.phases]
      : buildSchedule(options.durationMs, target ?? '', faults !== undefined && brokerNames.length > 1);
    if (faults && brokerNames.length < 2)
      notes.push('One broker only: faults skipped (nothing to fail over to).');

    const javaLike = options.strategy !== 'adaptive';
    producer = new Producer({
      producerGroup: `rocketmq-ts-demo-${runId}`,
      namesrvAddr,
      latencyFaultStrategy: options.strategy,
      sendLatencyFaultEnable: true,
      // The Java clients have no per-attempt cap (a hung broker can eat the whole send timeout)
      // and no hedged sends.
      ...(javaLike ? { sendAttemptTimeout: 0, hedgeSends: false } : {}),
    });
    await producer.start();
    consumers = new DemoConsumerGroup({
      namesrvAddr,
      topic,
      group: `rocketmq-ts-demo-cg-${runId}`,
      runProperty: RUN_PROPERTY,
      runId,
      seqProperty: SEQ_PROPERTY,
      // A fresh embedded topic is read from its start; a shared remote one from this run's start.
      consumeFromWhere: options.namesrv ? 'CONSUME_FROM_TIMESTAMP' : 'CONSUME_FROM_FIRST_OFFSET',
      consumeTimestamp: javaTimestamp(Date.now() - 10_000),
    });
    await consumers.start();
    const group = consumers;
    info('consumer group of two started; consumer 2 gets SIGKILL at 30 % of the run and comes back at 50 %');
    await options.onStarted?.({ namesrvAddr, producer });

    const recorder = new RunRecorder(brokerNames, phases.length, { bucketMs: bucketFor(options.durationMs) });
    const acks = new Map<number, AckRecord>();
    const failedSeqs = new Set<number>();
    const errorCounts = new Map<string, number>();
    const body = Buffer.alloc(options.bodySize, 0x61);
    const t0 = performance.now();
    const elapsed = (): number => performance.now() - t0;
    const sender = producer;

    const pacer = new PacedSender(
      { ratePerSec: options.ratePerSec, maxInFlight: options.maxInFlight, durationMs: options.durationMs },
      async (seq) => {
        const start = performance.now();
        try {
          const result = await sender.send({
            topic,
            body,
            tags: 'demo',
            keys: `demo-${runId}-${seq}`,
            properties: { [SEQ_PROPERTY]: String(seq), [RUN_PROPERTY]: runId },
          });
          const done = performance.now();
          recorder.recordAck(result.messageQueue.brokerName, done - start, done - t0);
          acks.set(seq, {
            msgId: result.msgId,
            brokerName: result.messageQueue.brokerName,
            queueId: result.messageQueue.queueId,
          });
        } catch (err) {
          const done = performance.now();
          recorder.recordFailure(done - start, done - t0);
          failedSeqs.add(seq);
          const key =
            err instanceof RocketMQError ? `${err.code}: ${firstLine(err.message)}` : firstLine(String(err));
          errorCounts.set(key, (errorCounts.get(key) ?? 0) + 1);
        }
      },
    );

    // fault schedule: phase changes are applied one after another, never concurrently
    let phaseIndex = 0;
    let faultChain: Promise<void> = Promise.resolve();
    let activeFault: { broker: string; fault: NonNullable<Phase['fault']> } | undefined;
    const applyPhase = (index: number): void => {
      const phase = phases[index]!;
      recorder.setPhase(index);
      const controller = faults;
      if (!controller) return;
      faultChain = faultChain.then(async () => {
        try {
          if (activeFault) {
            const { broker, fault } = activeFault;
            activeFault = undefined;
            await controller.clear(broker, fault);
          }
          if (phase.kind === 'fault' && phase.fault && phase.broker) {
            await controller.inject(phase.broker, phase.fault, phase.endMs - phase.startMs);
            activeFault = { broker: phase.broker, fault: phase.fault };
          }
        } catch (err) {
          notes.push(`Fault step "${phase.name}" failed: ${firstLine(String(err))}`);
        }
      });
    };
    applyPhase(0);
    let consumerChain: Promise<void> = Promise.resolve();
    let consumerStep = 0;

    const onAbort = (): void => pacer.stop();
    options.signal?.addEventListener('abort', onAbort);
    if (options.signal?.aborted) pacer.stop();
    const ticker = setInterval(() => {
      const now = elapsed();
      const index = phaseIndexAt(phases, Math.min(now, options.durationMs - 1));
      if (index !== phaseIndex) {
        phaseIndex = index;
        applyPhase(index);
      }
      recorder.advance(now);
      const step =
        now >= options.durationMs * CONSUMER_RESTART_AT
          ? 2
          : now >= options.durationMs * CONSUMER_KILL_AT
            ? 1
            : 0;
      for (; consumerStep < step; consumerStep++) {
        const restart = consumerStep === 1;
        consumerChain = consumerChain.then(() => (restart ? group.restart(1) : group.kill(1)));
      }
      options.onTick?.(liveView(options, phases[phaseIndex]!, recorder, sender, pacer, now));
    }, 250);
    try {
      await pacer.run();
    } finally {
      clearInterval(ticker);
      options.signal?.removeEventListener('abort', onAbort);
    }
    // an interrupted run reports only what it went through: its phases, its length
    const ranMs = Math.min(elapsed(), options.durationMs);
    const ran = phasesUntil(phases, ranMs);
    recorder.finish(ranMs);
    // end the last fault (restart a killed broker) so everything can be read back
    faultChain = faultChain.then(async () => {
      if (activeFault && faults) await faults.clear(activeFault.broker, activeFault.fault).catch(() => {});
      activeFault = undefined;
    });
    await faultChain;
    // the killed consumer is back for the final check (unless the run was interrupted)
    await consumerChain
      .then(() => (options.signal?.aborted ? undefined : group.restart(1)))
      .catch((err: unknown) => notes.push(`Restarting consumer 2 failed: ${firstLine(String(err))}`));
    options.onTick?.(liveView(options, ran[ran.length - 1]!, recorder, sender, pacer, ranMs));
    await producer.shutdown();
    producer = undefined;

    let verification: VerificationResult | undefined;
    if (!options.signal?.aborted) {
      info('waiting for the consumer group to consume every acknowledged message ...');
      try {
        await group.waitForAll(acks, 20_000, options.signal);
        await group.stop();
        verification = group.verify(acks, failedSeqs);
      } catch (err) {
        notes.push(`Consuming the messages failed, so nothing is verified: ${firstLine(String(err))}`);
      }
    } else {
      notes.push('Interrupted: messages were not read back.');
    }
    notes.push(...group.events);

    const timeline = recorder.timeline();
    const recovery: RecoveryFigure[] = [];
    if (target) {
      // a fault still active when the run stopped has no recovery to measure
      for (const phase of phases) {
        if (phase.kind !== 'fault' || !phase.fault || phase.endMs >= ranMs) continue;
        recovery.push({
          fault: phase.fault,
          ms: timeToRecover(timeline, target, phase.endMs, brokerNames.length),
          observedMs: ranMs - phase.endMs,
        });
      }
    }
    const starved = target
      ? starvation(
          timeline,
          target,
          brokerNames,
          ran.filter((p) => p.kind === 'recovery'),
        )
      : { starvedMs: 0, peakOtherShare: 0 };
    return {
      strategy: options.strategy,
      topic,
      brokers: brokerNames,
      targetBroker: target,
      ratePerSec: options.ratePerSec,
      durationMs: ranMs,
      faultsInjected: faults !== undefined && brokerNames.length > 1,
      phases: ran,
      phaseStats: recorder.phaseStats(ran),
      timeline,
      bucketMs: recorder.bucketMs,
      sent: pacer.issued,
      acknowledged: recorder.totalAcked,
      failed: recorder.totalFailed,
      skipped: pacer.skipped,
      p50: recorder.overall.percentile(50),
      p99: recorder.overall.percentile(99),
      recovery,
      starvedMs: starved.starvedMs,
      peakOtherShare: starved.peakOtherShare,
      verification,
      notes,
      errors: [...errorCounts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([message, count]) => ({ message, count })),
    };
  } finally {
    if (producer) await producer.shutdown().catch(() => {});
    await consumers?.stop().catch(() => {});
    await pool.close().catch(() => {});
    if (cluster) await cluster.stop().catch(() => {});
    // a dataDir we created is ours to keep (--keep-data); the cluster removes its own temp dir
    if (dataDir && !options.keepData) await rm(dataDir, { recursive: true, force: true });
  }
}

/** Bucket width for the timeline: 250 ms, wider for long runs so charts keep ≤ ~400 points. */
export function bucketFor(durationMs: number): number {
  return Math.max(250, Math.ceil(durationMs / 400 / 250) * 250);
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

function liveView(
  options: DemoRunOptions,
  phase: Phase,
  recorder: RunRecorder,
  producer: Producer,
  pacer: PacedSender,
  elapsedMs: number,
): LiveView {
  const health = new Map(producer.brokerHealth().map((h) => [h.brokerName, h]));
  const now = Date.now();
  return {
    strategy: options.strategy,
    elapsedMs: Math.min(elapsedMs, options.durationMs),
    durationMs: options.durationMs,
    phase,
    brokers: recorder.live().map((b) => {
      const h = health.get(b.name);
      return {
        ...b,
        isolated: h?.isolated ?? false,
        isolatedForMs:
          h?.isolated && h.isolatedUntil !== undefined ? Math.max(0, h.isolatedUntil - now) : undefined,
      };
    }),
    acked: recorder.totalAcked,
    failed: recorder.totalFailed,
    skipped: pacer.skipped,
    inFlight: pacer.pending,
    ratePerSec: options.ratePerSec,
  };
}

/**
 * Broker name → master address: the brokers serving `topic`, or every broker of the cluster when
 * the topic does not exist yet (the producer then creates it through TBW102 on first send).
 */
async function brokersOf(
  pool: ConnectionPool,
  namesrvAddr: string,
  topic: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const namesrv = new NamesrvClient(namesrvAddr.split(';'), pool, DEFAULT_COMMAND_DEFAULTS, silentLogger, 0);
  const route = await standaloneRouteLookup(namesrv, silentLogger, 3000).latest(topic, Deadline.after(3000));
  if (route !== undefined) {
    for (const bd of route.brokerDatas) {
      const master = bd.brokerAddrs[MASTER_ID];
      if (master !== undefined) out.set(bd.brokerName, master);
    }
    if (out.size > 0) return out;
  }
  const info = await namesrv.getClusterInfo(Deadline.after(3000));
  for (const [name, data] of Object.entries(info.brokerAddrTable)) {
    const master = data.brokerAddrs[MASTER_ID];
    if (master !== undefined) out.set(name, master);
  }
  return out;
}
