import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bodyFor, digestOf } from '../../../src/cli/chaos/payload.js';
import {
  checkQueueOrder,
  verifyChaos,
  type AckRecord,
  type GroupReport,
  type VerifyInput,
} from '../../../src/cli/chaos/verify.js';
import type { ReportedDelivery } from '../../../src/cli/demo/consumer-group.js';

const SEED = 5;

function ack(seq: number, queueOffset = seq, msgId = `id${seq}`): AckRecord {
  return { msgId, brokerName: 'broker-a', queueId: 0, queueOffset, elapsedMs: 10 };
}

function delivery(seq: number, over: Partial<ReportedDelivery> = {}): ReportedDelivery {
  return {
    member: 0,
    incarnation: 0,
    queue: 'broker-a/0',
    reconsumeTimes: 0,
    queueOffset: seq,
    digest: digestOf(bodyFor(SEED, seq)),
    ...over,
  };
}

function group(
  entries: Array<[number, ReportedDelivery]>,
  orderly = false,
  killed: string[] = [],
): GroupReport {
  const deliveries = new Map<number, ReportedDelivery[]>();
  for (const [seq, d] of entries) deliveries.set(seq, [...(deliveries.get(seq) ?? []), d]);
  return {
    name: orderly ? 'orderly' : 'consumer',
    orderly,
    deliveries,
    stream: entries.map(([seq, d]) => ({ seq, delivery: d })),
    killed: new Set(killed),
  };
}

function input(over: Partial<VerifyInput>): VerifyInput {
  return {
    seed: SEED,
    acks: new Map([0, 1, 2].map((s) => [s, ack(s)])),
    failures: new Map(),
    hedgedMsgIds: new Set(),
    groups: [],
    sendTimeoutMs: 3000,
    settleSlackMs: 1000,
    unsettled: [{ producer: 'producer 1', count: 0 }],
    crashes: [],
    memory: [{ name: 'broker-a', peakBytes: 100 * 1048576 }],
    memoryBoundBytes: 512 * 1048576,
    ...over,
  };
}

describe('chaos invariants', () => {
  it('everything consumed once, intact and in order: no violation', () => {
    const v = verifyChaos(
      input({
        groups: [
          group(
            [0, 1, 2].map((s) => [s, delivery(s)]),
            true,
          ),
        ],
      }),
    );
    assert.deepEqual(v.violations, []);
    assert.equal(v.groups[0]!.lost, 0);
    assert.equal(v.groups[0]!.duplicates, 0);
  });

  it('an acknowledged message no group member consumed is lost', () => {
    const v = verifyChaos(input({ groups: [group([0, 2].map((s) => [s, delivery(s)]))] }));
    assert.equal(v.groups[0]!.lost, 1);
    assert.deepEqual(v.groups[0]!.lostSeqs, [1]);
    assert.match(v.violations.join('\n'), /1 acknowledged messages never consumed \(seq 1\)/);
  });

  it('a body that differs from the one sent is reported', () => {
    const v = verifyChaos(
      input({
        groups: [
          group([
            [0, delivery(0)],
            [1, delivery(1, { digest: 'deadbeef' })],
            [2, delivery(2)],
          ]),
        ],
      }),
    );
    assert.equal(v.groups[0]!.corrupted, 1);
    assert.match(v.violations.join('\n'), /1 deliveries differ/);
  });

  it('a message read only from another copy than the acknowledged one is misplaced', () => {
    const v = verifyChaos(
      input({
        groups: [
          group([
            [0, delivery(0)],
            [1, delivery(1, { queueOffset: 7 })],
            [2, delivery(2)],
          ]),
        ],
      }),
    );
    assert.equal(v.groups[0]!.lost, 0);
    assert.equal(v.groups[0]!.misplaced, 1);
    assert.match(
      v.violations.join('\n'),
      /1 messages never read from the queue offset their send acknowledged/,
    );
  });

  it('duplicates each get a cause: stored twice (hedged or resent), killed consumer, rebalance, retry', () => {
    const acks = new Map([0, 1, 2, 3].map((s) => [s, ack(s)]));
    const g = group(
      [
        [0, delivery(0)],
        [0, delivery(0, { queueOffset: 10 })], // a second stored copy
        [1, delivery(1, { member: 1 })],
        [1, delivery(1)], // after a killed incarnation
        [2, delivery(2)],
        [2, delivery(2, { member: 2 })], // another member: rebalance
        [3, delivery(3)],
        [3, delivery(3, { reconsumeTimes: 1 })],
      ],
      false,
      ['1/0'],
    );
    const plain = verifyChaos(input({ acks, groups: [g] })).groups[0]!;
    assert.equal(plain.duplicates, 4);
    assert.equal(plain.duplicateCauses['a resend after an ambiguous send timeout stored it twice'], 1);
    assert.equal(plain.duplicateCauses['in flight or uncommitted when a consumer was killed'], 1);
    assert.equal(
      plain.duplicateCauses['a queue moved to another member before its offset was committed (rebalance)'],
      1,
    );
    assert.equal(plain.duplicateCauses['consumer retry (handler failed)'], 1);
    const hedged = verifyChaos(input({ acks, groups: [g], hedgedMsgIds: new Set(['id0']) })).groups[0]!;
    assert.equal(hedged.duplicateCauses['a hedged send stored it twice'], 1);
  });

  it('a late send, a send never settled, a process that died by itself and one over the memory bound are violations', () => {
    const acks = new Map([[0, { ...ack(0), elapsedMs: 4500 }]]);
    const v = verifyChaos(
      input({
        acks,
        failures: new Map([[1, 3900]]),
        groups: [group([[0, delivery(0)]])],
        unsettled: [{ producer: 'producer 2', count: 3 }],
        crashes: ['consumer 3 exited unexpectedly (exit 0): '],
        memory: [{ name: 'consumer 1', peakBytes: 600 * 1048576 }],
      }),
    );
    assert.equal(v.sendsOverTimeout, 1, 'only the send past 3000 + 1000 ms');
    assert.equal(v.maxSendMs, 4500);
    assert.equal(v.unsettled, 3);
    const text = v.violations.join('\n');
    assert.match(text, /1 sends settled after more than 3000 \+ 1000 ms/);
    assert.match(text, /producer 2: 3 sends never settled/);
    assert.match(text, /consumer 3 exited unexpectedly \(exit 0\)/);
    assert.equal(v.crashes.length, 1);
    assert.match(text, /consumer 1: peak memory 600 MiB over the bound of 512 MiB/);
  });
});

describe('orderly queue order', () => {
  const at = (offset: number, member = 0, incarnation = 0): { seq: number; delivery: ReportedDelivery } => ({
    seq: offset,
    delivery: delivery(offset, { member, incarnation }),
  });

  it('a swap within one member is an order break', () => {
    const r = checkQueueOrder([at(5), at(7), at(6), at(8)]);
    assert.ok(r.violations.length >= 1);
    assert.match(r.violations[0]!, /from offset 5 to 7/);
  });

  it('a replay from an earlier offset is a rewind, and a jump over what another member consumed is fine', () => {
    const r = checkQueueOrder([at(0), at(1), at(2), at(1), at(2), at(3), at(4, 1), at(5, 1), at(6), at(7)]);
    assert.deepEqual(r.violations, []);
    assert.equal(r.rewinds, 1);
  });

  it('a jump over offsets nobody else consumed is an order break', () => {
    assert.equal(checkQueueOrder([at(0), at(1), at(3)]).violations.length, 1);
  });
});
