/**
 * `npm run demo:failover [-- --duration 60s --rate 200 --report failover.html]`: the demo's
 * failover picture on a real cluster. Starts the DLedger topology of the topology harness (real
 * RocketMQ 4.9.7: a Raft group of three, `RaftNode00`, a plain master `broker-e`, two
 * NameServers), runs the demo's producer and consumer group of two against it, kills the group's
 * leader (SIGKILL) at 30 % of the run and restarts it (as a follower) at 70 %, and writes the
 * demo's HTML report: the group's share of the sends falls to zero when its leader dies and
 * returns once another leader is registered. Needs Java 17+ and the RocketMQ jars
 * (interop/target/4.9.7, built from ~/.m2 or Maven Central by scripts/interop-prepare.mjs).
 * Exit code 0 when every acknowledged message was read back, 1 otherwise, 2 on bad flags or a
 * missing Java/RocketMQ.
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { renderReport } from '../../src/cli/demo/report-html.js';
import type { FaultController } from '../../src/cli/demo/faults.js';
import { shareGap } from '../../src/cli/demo/recorder.js';
import type { RunResult } from '../../src/cli/demo/result.js';
import { runDemo } from '../../src/cli/demo/run.js';
import { buildFailoverSchedule } from '../../src/cli/demo/schedule.js';
import { LiveDisplay, renderSummary } from '../../src/cli/demo/terminal.js';
import { parseDuration, parseFlags, parsePositiveInt } from '../../src/cli/flags.js';
import { prepareInterop } from '../java.js';
import type { RealBroker, RealCluster } from '../real-cluster.js';
import {
  DLEDGER_GROUP,
  PLAIN_GROUP,
  TOPOLOGY_VERSION,
  createTopicEverywhere,
  dledgerLeader,
  startDledgerTopology,
  waitForNewMaster,
  waitUntil,
} from './topology.js';
import { SendTraffic, topologyProducer } from './traffic.js';

const FLAGS = {
  duration: { type: 'string', default: '60s' },
  rate: { type: 'string', default: '200' },
  report: { type: 'string', default: 'failover.html' },
} as const;

const HELP = `Usage: npm run demo:failover [-- options]

Starts a real RocketMQ ${TOPOLOGY_VERSION} DLedger topology (${DLEDGER_GROUP}: 3 nodes; ${PLAIN_GROUP}; two
NameServers), runs the demo's producer and consumers, kills ${DLEDGER_GROUP}'s leader at 30 % of the
run and restarts it at 70 %, and writes the HTML report.

Options:
  --duration <time>  run length (default 60s)
  --rate <n>         messages per second (default 200)
  --report <file>    HTML report (default failover.html)`;

/** Acknowledged sends per group before the demo starts. */
const WARM_UP_ACKS = 300;

/** What happened to the group's leader, in wall-clock ms. */
interface Failover {
  killed?: RealBroker;
  killedAt?: number;
  elected?: RealBroker;
  registeredAt?: number;
  error?: string;
}

/**
 * The demo's `killed` fault on a DLedger group: SIGKILL its current leader (the NameServer's
 * brokerId 0) and watch for the next one; clearing it restarts the old leader, which rejoins
 * as a follower.
 */
function leaderKill(cluster: RealCluster, failover: Failover): FaultController {
  return {
    async inject(group) {
      const leader = await dledgerLeader(cluster, group);
      if (leader === undefined) throw new Error(`${group} has no leader to kill`);
      failover.killed = leader;
      failover.killedAt = Date.now();
      await cluster.kill(leader.name, 'SIGKILL');
      void waitForNewMaster(cluster, group, { notAddr: leader.addr }).then(
        (m) => {
          failover.elected = m.node;
          failover.registeredAt = m.registeredAt;
        },
        (err: unknown) => {
          failover.error = String(err);
        },
      );
    },
    async clear() {
      if (failover.killed !== undefined && !cluster.isAlive(failover.killed.name))
        await cluster.restart(failover.killed.name);
    },
  };
}

/**
 * Sends until both groups acknowledged WARM_UP_ACKS sends each: freshly started JVMs answer in
 * seconds at first, which the report would show as the demo's own warm-up. The demo's consumers
 * ignore these messages (they carry no run id).
 */
async function warmUp(cluster: RealCluster, topic: string): Promise<void> {
  const producer = await topologyProducer(cluster.namesrvAddr, `failover_warmup_${Date.now().toString(36)}`);
  const traffic = new SendTraffic(producer, topic, { concurrency: 8 });
  traffic.start();
  try {
    await waitUntil(
      'both groups answering',
      () => [DLEDGER_GROUP, PLAIN_GROUP].every((g) => traffic.ackedBy(g).length >= WARM_UP_ACKS),
      120_000,
    );
  } finally {
    await traffic.stop();
    await producer.shutdown();
  }
}

/** The failover's figures, for the terminal and the report's notes. */
function figures(run: RunResult, failover: Failover, runStartedAt: number): string[] {
  const killPhase = run.phases.find((p) => p.kind === 'fault');
  if (failover.killedAt === undefined || failover.killed === undefined || killPhase === undefined)
    return ['The leader was not killed (the run ended before the fault phase).'];
  const killMs = failover.killedAt - runStartedAt;
  const out = [
    `${DLEDGER_GROUP}'s leader ${failover.killed.name} was killed (SIGKILL) at ${(killMs / 1000).toFixed(1)} s.`,
  ];
  let registeredMs: number | undefined;
  if (failover.registeredAt !== undefined && failover.elected !== undefined) {
    registeredMs = failover.registeredAt - runStartedAt;
    out.push(
      `${failover.elected.name} was registered as the new leader at ${(registeredMs / 1000).toFixed(1)} s, ${failover.registeredAt - failover.killedAt} ms after the kill.`,
    );
  } else
    out.push(`No new leader was registered during the run${failover.error ? ` (${failover.error})` : ''}.`);
  const gap = shareGap(run.timeline, DLEDGER_GROUP, killMs);
  if (gap === undefined) out.push(`${DLEDGER_GROUP}'s share never fell to zero.`);
  else {
    out.push(
      `${DLEDGER_GROUP}'s share fell to zero at ${(gap.zeroMs / 1000).toFixed(2)} s and ${gap.backMs === undefined ? 'did not return during the run' : `returned at ${(gap.backMs / 1000).toFixed(2)} s`} (${run.bucketMs} ms buckets).`,
    );
    if (gap.backMs !== undefined && registeredMs !== undefined)
      out.push(
        `Traffic back ${Math.max(0, gap.backMs + run.bucketMs - registeredMs)} ms at most after the new leader registered (end of the first bucket with acknowledgements).`,
      );
  }
  return out;
}

async function main(argv: string[]): Promise<number> {
  let flags;
  try {
    const values = parseFlags(argv, FLAGS);
    if (values.help) {
      console.log(HELP);
      return 0;
    }
    flags = {
      durationMs: parseDuration('--duration', values.duration),
      rate: parsePositiveInt('--rate', values.rate, 100_000),
      report: resolve(values.report),
    };
  } catch (err) {
    console.error(`${String(err instanceof Error ? err.message : err)}\n\n${HELP}`);
    return 2;
  }
  try {
    prepareInterop();
  } catch (err) {
    console.error(
      `demo:failover starts a real RocketMQ ${TOPOLOGY_VERSION} cluster and needs Java 17+ and the RocketMQ jars ` +
        `(interop/target/${TOPOLOGY_VERSION}; built from ~/.m2 or Maven Central by node scripts/interop-prepare.mjs): ` +
        String(err instanceof Error ? err.message : err),
    );
    return 2;
  }
  console.log(
    `starting the DLedger topology (4 brokers, 2 NameServers; a minute or two on a small machine) ...`,
  );
  const t0 = Date.now();
  const cluster = await startDledgerTopology();
  const failover: Failover = {};
  let runStartedAt = 0;
  try {
    console.log(
      `topology up in ${((Date.now() - t0) / 1000).toFixed(1)} s; NameServers ${cluster.namesrvAddr}`,
    );
    const topic = `rocketmq-ts-failover-${Date.now().toString(36)}`;
    console.log(`topic ${topic} on every node, then a warm-up (${WARM_UP_ACKS} sends per group) ...`);
    await createTopicEverywhere(cluster, topic);
    await warmUp(cluster, topic);
    const display = new LiveDisplay(process.stdout, false);
    const run = await runDemo({
      strategy: 'adaptive',
      brokers: 2,
      ratePerSec: flags.rate,
      durationMs: flags.durationMs,
      topic,
      keepData: false,
      maxInFlight: 256,
      bodySize: 128,
      topology: {
        namesrvAddr: cluster.namesrvAddr,
        brokerNames: [DLEDGER_GROUP, PLAIN_GROUP],
        target: DLEDGER_GROUP,
        faults: leaderKill(cluster, failover),
        phases: buildFailoverSchedule(flags.durationMs, DLEDGER_GROUP),
      },
      onInfo: (m) => console.log(m),
      onTick: (view) => display.update(view),
      onStarted: () => {
        runStartedAt = Date.now();
      },
    });
    display.done();
    const notes = figures(run, failover, runStartedAt);
    const annotated: RunResult = {
      ...run,
      notes: [
        `Real RocketMQ ${TOPOLOGY_VERSION} DLedger topology: ${DLEDGER_GROUP} (3 nodes, Raft) and ${PLAIN_GROUP}; the fault kills ${DLEDGER_GROUP}'s leader and restarts it as a follower.`,
        ...notes,
        ...run.notes,
      ],
    };
    // The summary lists the notes, the failover's figures among them.
    console.log(renderSummary(annotated, false));
    await writeFile(flags.report, renderReport([annotated]));
    console.log(`\nreport written to ${flags.report}`);
    const v = run.verification;
    return v !== undefined && v.lost === 0 ? 0 : 1;
  } finally {
    await cluster.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
