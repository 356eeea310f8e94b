/** A synthetic RunResult (no cluster): three brokers at 200 msgs/s, broker-b out during each fault. */
import { RunRecorder, starvation, timeToRecover } from '../../src/cli/demo/recorder.js';
import type { RunResult } from '../../src/cli/demo/result.js';
import { buildSchedule, phaseIndexAt } from '../../src/cli/demo/schedule.js';

export function syntheticRun(strategy: string, durationMs = 20_000, lagMs = 0): RunResult {
  const brokers = ['broker-a', 'broker-b', 'broker-c'];
  const phases = buildSchedule(durationMs, 'broker-b');
  const rec = new RunRecorder(brokers, phases.length, { bucketMs: 250 });
  let n = 0;
  let failed = 0;
  for (let t = 0; t < durationMs; t += 5) {
    const i = phaseIndexAt(phases, t);
    rec.setPhase(i);
    const phase = phases[i]!;
    const outage = phase.kind === 'fault' || (phase.kind === 'recovery' && t < phase.startMs + lagMs);
    let broker = brokers[n++ % 3]!;
    if (broker === 'broker-b' && outage) {
      if (n % 7 === 0) {
        rec.recordFailure(phase.fault === 'hung' ? 3000 : 40, t);
        failed += 1;
        continue;
      }
      broker = 'broker-c';
    }
    rec.recordAck(broker, 1 + (n % 10) / 10 + (outage ? 30 : 0), t);
  }
  rec.finish(durationMs);
  const timeline = rec.timeline();
  return {
    strategy,
    topic: 'rocketmq-ts-demo-test',
    brokers,
    targetBroker: 'broker-b',
    ratePerSec: 200,
    durationMs,
    faultsInjected: true,
    phases,
    phaseStats: rec.phaseStats(phases),
    timeline,
    bucketMs: 250,
    sent: n,
    acknowledged: rec.totalAcked,
    failed,
    skipped: 0,
    p50: rec.overall.percentile(50),
    p99: rec.overall.percentile(99),
    recovery: phases
      .filter((p) => p.kind === 'fault')
      .map((p) => ({
        fault: p.fault!,
        ms: timeToRecover(timeline, 'broker-b', p.endMs, 3),
        observedMs: durationMs - p.endMs,
      })),
    ...starvation(
      timeline,
      'broker-b',
      brokers,
      phases.filter((p) => p.kind === 'recovery'),
    ),
    verification: {
      consumed: rec.totalAcked,
      distinct: rec.totalAcked,
      lost: 0,
      lostMsgIds: [],
      duplicates: 0,
      storedButFailed: 0,
      misplaced: 0,
    },
    notes: [],
    errors: [],
  };
}
