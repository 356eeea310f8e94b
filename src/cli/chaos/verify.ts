/**
 * The chaos run's invariants, checked from what every process reported (pure: no I/O, so each
 * check has a test that makes it fail). Each broken invariant becomes one line in `violations`.
 */
import { emptyCauseCounts, explainDuplicates, type DuplicateCause } from '../demo/duplicates.js';
import type { ReportedDelivery } from '../demo/consumer-group.js';
import { bodyFor, digestOf } from './payload.js';

export interface AckRecord {
  readonly msgId: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly elapsedMs: number;
}

export interface GroupReport {
  readonly name: string;
  readonly orderly: boolean;
  readonly deliveries: ReadonlyMap<number, readonly ReportedDelivery[]>;
  /** Every delivery in arrival order (checked for queue order when `orderly`). */
  readonly stream: ReadonlyArray<{ readonly seq: number; readonly delivery: ReportedDelivery }>;
  readonly killed: ReadonlySet<string>;
}

export interface VerifyInput {
  readonly seed: number;
  readonly acks: ReadonlyMap<number, AckRecord>;
  /** Failed sends: seq → ms until the failure. */
  readonly failures: ReadonlyMap<number, number>;
  readonly hedgedMsgIds: ReadonlySet<string>;
  readonly groups: readonly GroupReport[];
  readonly sendTimeoutMs: number;
  /** Allowed lateness beyond the send timeout (timer and event-loop delay on a loaded machine). */
  readonly settleSlackMs: number;
  /** Sends each producer started but never settled (it printed no outcome before it ended). */
  readonly unsettled: ReadonlyArray<{ readonly producer: string; readonly count: number }>;
  /** Processes that exited without being killed or stopped, described. */
  readonly crashes: readonly string[];
  /** Peak resident memory per process, bytes. */
  readonly memory: ReadonlyArray<{ readonly name: string; readonly peakBytes: number }>;
  readonly memoryBoundBytes: number;
}

export interface GroupVerification {
  readonly name: string;
  readonly orderly: boolean;
  readonly consumed: number;
  readonly distinct: number;
  readonly lost: number;
  readonly lostSeqs: readonly number[];
  /** Deliveries whose body differed from what was sent. */
  readonly corrupted: number;
  /**
   * Messages consumed, but never from the queue and offset their SendResult named: the copy the
   * broker acknowledged is gone (only another stored copy was read).
   */
  readonly misplaced: number;
  readonly duplicates: number;
  readonly duplicateCauses: Readonly<Record<DuplicateCause, number>>;
  /** Messages read back whose send had failed (stored, but the producer never heard). */
  readonly storedButFailed: number;
  /** Queue-order breaks seen by an orderly group (first few, described). */
  readonly orderViolations: readonly string[];
  /** Rewinds of an orderly stream to an earlier offset (replays after a rebalance or crash). */
  readonly orderlyRewinds: number;
}

export interface ChaosVerification {
  readonly acknowledged: number;
  readonly failed: number;
  readonly hedged: number;
  readonly groups: readonly GroupVerification[];
  /** Slowest send to settle (acknowledged or failed), ms. */
  readonly maxSendMs: number;
  readonly sendsOverTimeout: number;
  /** Processes that exited by themselves. */
  readonly crashes: readonly string[];
  /** The longest a send may take: its timeout plus the allowed lateness. */
  readonly settleLimitMs: number;
  readonly unsettled: number;
  readonly violations: readonly string[];
}

const SHOW = 20;

export function verifyChaos(input: VerifyInput): ChaosVerification {
  const violations: string[] = [];
  const expected = new Map<number, string>();
  const digest = (seq: number): string => {
    let d = expected.get(seq);
    if (d === undefined) {
      d = digestOf(bodyFor(input.seed, seq));
      expected.set(seq, d);
    }
    return d;
  };

  const groups = input.groups.map((g) => verifyGroup(g, input, digest));
  for (const g of groups) {
    if (g.lost > 0)
      violations.push(
        `${g.name}: ${g.lost} acknowledged messages never consumed (seq ${g.lostSeqs.slice(0, SHOW).join(', ')})`,
      );
    if (g.corrupted > 0) violations.push(`${g.name}: ${g.corrupted} deliveries differ from the bytes sent`);
    if (g.misplaced > 0)
      violations.push(
        `${g.name}: ${g.misplaced} messages never read from the queue offset their send acknowledged`,
      );
    for (const v of g.orderViolations) violations.push(`${g.name}: out of order: ${v}`);
  }

  const limit = input.sendTimeoutMs + input.settleSlackMs;
  let maxSendMs = 0;
  let sendsOverTimeout = 0;
  for (const ms of [...[...input.acks.values()].map((a) => a.elapsedMs), ...input.failures.values()]) {
    maxSendMs = Math.max(maxSendMs, ms);
    if (ms > limit) sendsOverTimeout++;
  }
  if (sendsOverTimeout > 0)
    violations.push(
      `${sendsOverTimeout} sends settled after more than ${input.sendTimeoutMs} + ${input.settleSlackMs} ms (slowest ${maxSendMs} ms)`,
    );
  const unsettled = input.unsettled.reduce((n, u) => n + u.count, 0);
  for (const u of input.unsettled)
    if (u.count > 0) violations.push(`${u.producer}: ${u.count} sends never settled`);
  for (const c of input.crashes) violations.push(c);
  for (const m of input.memory)
    if (m.peakBytes > input.memoryBoundBytes)
      violations.push(
        `${m.name}: peak memory ${mib(m.peakBytes)} MiB over the bound of ${mib(input.memoryBoundBytes)} MiB`,
      );

  return {
    acknowledged: input.acks.size,
    failed: input.failures.size,
    hedged: input.hedgedMsgIds.size,
    groups,
    maxSendMs,
    sendsOverTimeout,
    settleLimitMs: limit,
    crashes: input.crashes,
    unsettled,
    violations,
  };
}

function verifyGroup(g: GroupReport, input: VerifyInput, digest: (seq: number) => string): GroupVerification {
  const lostSeqs: number[] = [];
  let lost = 0;
  let misplaced = 0;
  for (const [seq, a] of input.acks) {
    const list = g.deliveries.get(seq);
    if (list === undefined) {
      lost++;
      if (lostSeqs.length < 100) lostSeqs.push(seq);
      continue;
    }
    const queue = `${a.brokerName}/${a.queueId}`;
    if (!list.some((d) => d.queue === queue && d.queueOffset === a.queueOffset)) misplaced++;
  }
  lostSeqs.sort((a, b) => a - b);
  const causes = emptyCauseCounts();
  let consumed = 0;
  let duplicates = 0;
  let corrupted = 0;
  let storedButFailed = 0;
  for (const [seq, list] of g.deliveries) {
    consumed += list.length;
    if (input.failures.has(seq)) storedButFailed++;
    for (const d of list) if (d.digest !== digest(seq)) corrupted++;
    if (list.length < 2) continue;
    duplicates += list.length - 1;
    const hedged = input.hedgedMsgIds.has(input.acks.get(seq)?.msgId ?? '');
    for (const cause of explainDuplicates(list, { killed: g.killed, hedged })) causes[cause]++;
  }
  const order = g.orderly ? checkQueueOrder(g.stream) : { violations: [], rewinds: 0 };
  return {
    name: g.name,
    orderly: g.orderly,
    consumed,
    distinct: g.deliveries.size,
    lost,
    lostSeqs,
    corrupted,
    misplaced,
    duplicates,
    duplicateCauses: causes,
    storedButFailed,
    orderViolations: order.violations,
    orderlyRewinds: order.rewinds,
  };
}

/**
 * Queue order as an orderly consumer must keep it: within one incarnation's run on one queue,
 * each message is the next offset, or an earlier one (a replay from the committed offset after a
 * rebalance or crash, counted as a rewind). A jump forward is allowed only over offsets another
 * incarnation consumed (the queue was away meanwhile); anything else is an order break.
 */
export function checkQueueOrder(
  stream: ReadonlyArray<{ readonly seq: number; readonly delivery: ReportedDelivery }>,
): { violations: string[]; rewinds: number } {
  const consumedBy = new Map<string, Map<number, Set<string>>>();
  for (const { delivery: d } of stream) {
    let offsets = consumedBy.get(d.queue);
    if (!offsets) consumedBy.set(d.queue, (offsets = new Map()));
    let who = offsets.get(d.queueOffset);
    if (!who) offsets.set(d.queueOffset, (who = new Set()));
    who.add(`${d.member}/${d.incarnation}`);
  }
  const last = new Map<string, number>();
  const violations: string[] = [];
  let rewinds = 0;
  for (const { seq, delivery: d } of stream) {
    const me = `${d.member}/${d.incarnation}`;
    const key = `${me} ${d.queue}`;
    const prev = last.get(key);
    last.set(key, d.queueOffset);
    if (prev === undefined || d.queueOffset === prev + 1) continue;
    if (d.queueOffset <= prev) {
      rewinds++;
      continue;
    }
    const offsets = consumedBy.get(d.queue)!;
    for (let o = prev + 1; o < d.queueOffset; o++) {
      const others = [...(offsets.get(o) ?? [])].filter((w) => w !== me);
      if (others.length > 0) continue;
      if (violations.length < SHOW)
        violations.push(
          `${d.queue}: member ${d.member + 1} (start ${d.incarnation}) went from offset ${prev} to ${d.queueOffset} (seq ${seq}); offset ${o} was consumed by no other member`,
        );
      break;
    }
  }
  return { violations, rewinds };
}

export function mib(bytes: number): number {
  return Math.round(bytes / 1048576);
}
