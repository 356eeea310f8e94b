import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MessageQueue } from '../../../src/client/route.js';
import {
  allocate,
  compareCodeUnits,
  md5Hash32,
  messageQueueToString,
  resolveAllocateStrategy,
  type AllocateStrategy,
  type AllocateStrategyName,
} from '../../../src/consumer/allocate/index.js';
import { InvalidArgumentError } from '../../../src/errors.js';
import type { Logger } from '../../../src/observability/logger.js';
import { rng } from '../../helpers/rng.js';

const TOPIC = 'T';
const mq = (brokerName: string, queueId: number, topic = TOPIC): MessageQueue => ({
  topic,
  brokerName,
  queueId,
});
const short = (q: MessageQueue): string => `${q.brokerName.slice(-1)}${q.queueId}`;

// Data only: the verified Java vector's client ids (docs/consumers.md §1.2). Nothing connects to
// them; they are built from parts because the CONSISTENT_HASH result depends on these exact
// strings and the project keeps private-range address literals out of source.
const javaCid = (last: number): string => ['10', '0', '0', String(last)].join('.') + '@1';
const CIDS = [javaCid(1), javaCid(2), javaCid(3)];
const QUEUES = [0, 1, 2, 3].map((i) => mq('broker-a', i)).concat([0, 1, 2, 3].map((i) => mq('broker-b', i)));

function allOf(strategy: AllocateStrategy, mqAll: readonly MessageQueue[], cidAll: readonly string[]) {
  return cidAll.map((currentCID) => allocate(strategy, { consumerGroup: 'G', currentCID, mqAll, cidAll }));
}

function capture(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const noop = (): void => {};
  return { warnings, logger: { debug: noop, info: noop, error: noop, warn: (m) => warnings.push(m) } };
}

describe('allocate strategies: the Java-verified vector (8 queues, 3 consumers)', () => {
  const cases: [AllocateStrategyName, string[]][] = [
    ['AVG', ['a0 a1 a2', 'a3 b0 b1', 'b2 b3']],
    ['AVG_BY_CIRCLE', ['a0 a3 b2', 'a1 b0 b3', 'a2 b1']],
    ['CONSISTENT_HASH', ['a0 b1', 'a1 b0 b2 b3', 'a2 a3']],
  ];
  for (const [name, expected] of cases) {
    it(`${name} gives the Java result`, () => {
      const got = allOf(resolveAllocateStrategy(name), QUEUES, CIDS).map((r) => r.map(short).join(' '));
      assert.deepEqual(got, expected);
    });
    it(`${name} gives the same result from shuffled inputs (sorted like Java first)`, () => {
      const mqAll = [...QUEUES].reverse();
      const cidAll = [CIDS[2]!, CIDS[0]!, CIDS[1]!];
      const strategy = resolveAllocateStrategy(name);
      const got = CIDS.map((currentCID) =>
        allocate(strategy, { consumerGroup: 'G', currentCID, mqAll, cidAll }).map(short).join(' '),
      );
      assert.deepEqual(got, expected);
    });
  }

  it('CONSISTENT_HASH keys: Java MessageQueue#toString and the unsigned first 4 MD5 bytes', () => {
    assert.equal(
      messageQueueToString(mq('broker-a', 3)),
      'MessageQueue [topic=T, brokerName=broker-a, queueId=3]',
    );
    // MD5("") = d41d8cd9…: the top byte is above 0x7f, so a signed read would be negative.
    assert.equal(md5Hash32(''), 0xd41d8cd9);
  });
});

describe('allocate: Java check and order', () => {
  const avg = resolveAllocateStrategy('AVG');

  it('a consumer missing from the group list gets nothing and a warning', () => {
    const { logger, warnings } = capture();
    const got = allocate(
      avg,
      { consumerGroup: 'G', currentCID: '127.0.0.9@1', mqAll: QUEUES, cidAll: CIDS },
      logger,
    );
    assert.deepEqual(got, []);
    assert.equal(warnings.length, 1);
  });

  it('empty inputs throw InvalidArgumentError naming the input', () => {
    const ctx = { consumerGroup: 'G', currentCID: CIDS[0]!, mqAll: QUEUES, cidAll: CIDS };
    for (const [field, bad] of [
      ['currentCID', { ...ctx, currentCID: '' }],
      ['mqAll', { ...ctx, mqAll: [] }],
      ['cidAll', { ...ctx, cidAll: [] }],
    ] as const) {
      assert.throws(
        () => allocate(avg, bad),
        (err: unknown) => err instanceof InvalidArgumentError && err.field === field,
      );
    }
  });

  it('sorts by UTF-16 code units like Java, not by locale', () => {
    // Locale order puts 'a' before 'B'; Java's compareTo puts 'B' (0x42) first.
    assert.deepEqual(['a', 'B', '_', 'Z'].sort(compareCodeUnits), ['B', 'Z', '_', 'a']);
    const mqAll = [mq('a', 0), mq('B', 1), mq('B', 0), mq('x', 0, 'A')];
    const cidAll = ['b@1', 'A@1'];
    const first = allocate(resolveAllocateStrategy('AVG_BY_CIRCLE'), {
      consumerGroup: 'G',
      currentCID: 'A@1',
      mqAll,
      cidAll,
    });
    // Sorted: A/x0, T/B0, T/B1, T/a0; consumer A@1 is index 0 and takes positions 0 and 2.
    assert.deepEqual(first, [mq('x', 0, 'A'), mq('B', 1)]);
  });

  it("does not reorder the caller's arrays", () => {
    const mqAll = [...QUEUES].reverse();
    const snapshot = [...mqAll];
    allocate(avg, { consumerGroup: 'G', currentCID: CIDS[0]!, mqAll, cidAll: CIDS });
    assert.deepEqual(mqAll, snapshot);
  });

  it('AVG with more consumers than queues leaves the surplus consumers idle', () => {
    const cids = ['c1', 'c2', 'c3', 'c4'];
    const got = allOf(avg, [mq('a', 0), mq('a', 1)], cids).map((r) => r.map(short).join(' '));
    assert.deepEqual(got, ['a0', 'a1', '', '']);
  });
});

describe('allocate: CONFIG, MACHINE_ROOM, nearby and user functions', () => {
  it('CONFIG returns the configured queues to every consumer', () => {
    const configured = [mq('broker-b', 2), mq('broker-a', 0)];
    const strategy = resolveAllocateStrategy('CONFIG', { messageQueues: configured });
    for (const got of allOf(strategy, QUEUES, CIDS)) assert.deepEqual(got, configured);
  });

  it('MACHINE_ROOM takes only rooms in consumeridcs, in blocks, remainder to the first consumers', () => {
    const mqAll = [
      ...[0, 1, 2].map((i) => mq('hz@broker-a', i)),
      ...[0, 1].map((i) => mq('sh@broker-b', i)),
      ...[0, 1].map((i) => mq('bj@broker-c', i)),
      mq('plain', 0),
    ];
    const strategy = resolveAllocateStrategy('MACHINE_ROOM', { consumeridcs: ['hz', 'sh'] });
    const got = allOf(strategy, mqAll, ['c1', 'c2']).map((r) => r.map((q) => `${q.brokerName}/${q.queueId}`));
    // premqAll (sorted) = hz0 hz1 hz2 sh0 sh1: mod 2, rem 1 → c1 takes hz0 hz1 + sh1 (index 0 + 2·2).
    assert.deepEqual(got, [
      ['hz@broker-a/0', 'hz@broker-a/1', 'sh@broker-b/1'],
      ['hz@broker-a/2', 'sh@broker-b/0'],
    ]);
  });

  it("machine-room nearby keeps a room's queues in that room and shares rooms without consumers", () => {
    const resolver = {
      brokerDeployIn: (q: MessageQueue) => q.brokerName.split('-')[0]!,
      consumerDeployIn: (cid: string) => cid.split('@')[0]!,
    };
    const mqAll = [mq('hz-a', 0), mq('hz-a', 1), mq('sh-b', 0), mq('sh-b', 1), mq('bj-c', 0), mq('bj-c', 1)];
    const cids = ['hz@1', 'sh@1', 'sh@2'];
    const strategy = resolveAllocateStrategy('AVG', { machineRoomResolver: resolver });
    const got = allOf(strategy, mqAll, cids).map((r) => r.map((q) => `${q.brokerName}/${q.queueId}`));
    // bj has no consumer: its two queues are shared by all three (AVG over cidAll).
    assert.deepEqual(got, [['hz-a/0', 'hz-a/1', 'bj-c/0'], ['sh-b/0', 'bj-c/1'], ['sh-b/1']]);
  });

  it('a user function receives sorted inputs and its result is returned', () => {
    let seen: readonly string[] = [];
    const mine: AllocateStrategy = (ctx) => {
      seen = ctx.cidAll;
      return ctx.mqAll.slice(0, 1);
    };
    const got = allocate(resolveAllocateStrategy(mine), {
      consumerGroup: 'G',
      currentCID: 'b',
      mqAll: [...QUEUES].reverse(),
      cidAll: ['c', 'a', 'b'],
    });
    assert.deepEqual(seen, ['a', 'b', 'c']);
    assert.deepEqual(got, [mq('broker-a', 0)]);
  });

  it('rejects bad specs and options, naming the field', () => {
    const bad: [string, () => unknown][] = [
      ['allocateMessageQueueStrategy', () => resolveAllocateStrategy('RANDOM' as AllocateStrategyName)],
      ['messageQueues', () => resolveAllocateStrategy('CONFIG')],
      [
        'messageQueues',
        () => resolveAllocateStrategy('CONFIG', { messageQueues: [{ topic: 'T' } as MessageQueue] }),
      ],
      ['consumeridcs', () => resolveAllocateStrategy('MACHINE_ROOM')],
      ['consumeridcs', () => resolveAllocateStrategy('MACHINE_ROOM', { consumeridcs: [] })],
      ['consumeridcs', () => resolveAllocateStrategy('AVG', { consumeridcs: ['hz'] })],
      ['virtualNodeCount', () => resolveAllocateStrategy('CONSISTENT_HASH', { virtualNodeCount: -1 })],
      ['virtualNodeCount', () => resolveAllocateStrategy('AVG', { virtualNodeCount: 5 })],
      ['machineRoomResolver', () => resolveAllocateStrategy('AVG', { machineRoomResolver: {} as never })],
      ['colour', () => resolveAllocateStrategy('AVG', { colour: 1 } as never)],
    ];
    for (const [field, fn] of bad) {
      assert.throws(fn, (err: unknown) => err instanceof InvalidArgumentError && err.field === field, field);
    }
  });
});

describe('allocate property: consumers of one group share every queue exactly once', () => {
  const rooms = ['hz', 'sh', 'bj'];
  const strategies: [string, () => AllocateStrategy][] = [
    ['AVG', () => resolveAllocateStrategy('AVG')],
    ['AVG_BY_CIRCLE', () => resolveAllocateStrategy('AVG_BY_CIRCLE')],
    ['CONSISTENT_HASH', () => resolveAllocateStrategy('CONSISTENT_HASH')],
    ['CONSISTENT_HASH(1)', () => resolveAllocateStrategy('CONSISTENT_HASH', { virtualNodeCount: 1 })],
    ['MACHINE_ROOM', () => resolveAllocateStrategy('MACHINE_ROOM', { consumeridcs: rooms })],
    [
      'nearby(AVG_BY_CIRCLE)',
      () =>
        resolveAllocateStrategy('AVG_BY_CIRCLE', {
          // Consumers land in random rooms, so some rooms have none and are shared.
          machineRoomResolver: {
            brokerDeployIn: (q) => q.brokerName.split('@')[0]!,
            consumerDeployIn: (cid) => rooms[Number(cid.split('.')[3]) % rooms.length]!,
          },
        }),
    ],
  ];
  for (const [name, make] of strategies) {
    it(name, () => {
      const random = rng(name.length * 7919);
      for (let round = 0; round < 200; round++) {
        const brokers = Array.from(
          { length: 1 + Math.floor(random() * 4) },
          (_, i) => `${rooms[Math.floor(random() * 3)]}@broker-${i}`,
        );
        const queueCount = 1 + Math.floor(random() * 40);
        const mqAll = Array.from({ length: queueCount }, (_, i) =>
          mq(brokers[i % brokers.length]!, Math.floor(i / brokers.length)),
        );
        const cidAll = Array.from(
          { length: 1 + Math.floor(random() * 10) },
          (_, i) => `127.0.0.${1 + Math.floor(random() * 250)}.${i}@${i}`,
        );
        const strategy = make();
        const seen = new Map<string, string>();
        for (const currentCID of cidAll) {
          for (const q of allocate(strategy, { consumerGroup: 'G', currentCID, mqAll, cidAll })) {
            const key = messageQueueToString(q);
            assert.equal(seen.get(key), undefined, `${key} given to ${seen.get(key)} and ${currentCID}`);
            seen.set(key, currentCID);
          }
        }
        assert.deepEqual([...seen.keys()].sort(), mqAll.map(messageQueueToString).sort(), `round ${round}`);
      }
    });
  }
});
