/** Priority messages on the embedded broker: placement by priority and POP's priority order. */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { encodeProperties, decodeProperties, PropertyKey } from '../../../src/protocol/message/properties.js';
import { topicConfig } from '../../../src/protocol/headers/register.js';
import { MESSAGE_TYPE_ATTRIBUTE } from '../../../src/protocol/message/message-type.js';
import { validateBrokerOptions } from '../../../src/server/broker/options.js';
import { placeByPriority, popPlan, PRIORITY_FACTOR_ATTRIBUTE } from '../../../src/server/broker/priority.js';
import type { EmbeddedCluster } from '../../../src/server/cluster.js';
import { readTopic } from '../../producer/cluster-helpers.js';
import { popScenario, receiveAtLeast } from '../../consumer/simple-consumer-helpers.js';

const T4 = topicConfig('T', { readQueueNums: 4, writeQueueNums: 4 });
const PRIORITY_TOPIC = topicConfig('T', {
  readQueueNums: 4,
  writeQueueNums: 4,
  attributes: { [MESSAGE_TYPE_ATTRIBUTE]: 'PRIORITY' },
});

function header(props: Record<string, string>): { properties: string } {
  return { properties: encodeProperties(props) };
}

describe('priority placement (Java SendMessageProcessor)', () => {
  it('a priority message goes to queue min(priority, writeQueueNums − 1)', () => {
    assert.equal(placeByPriority(header({ [PropertyKey.PRIORITY]: '0' }), T4), 0);
    assert.equal(placeByPriority(header({ [PropertyKey.PRIORITY]: '2' }), T4), 2);
    assert.equal(placeByPriority(header({ [PropertyKey.PRIORITY]: '99' }), T4), 3);
  });

  it('a delayed, grouped or transactional message loses the property and keeps its queue', () => {
    const others: Array<Record<string, string>> = [
      { [PropertyKey.DELAY]: '2' },
      { [PropertyKey.TIMER_DELIVER_MS]: '1' },
      { [PropertyKey.SHARDING_KEY]: 'g' },
      { [PropertyKey.TRAN_MSG]: 'true' },
    ];
    for (const other of others) {
      const h = header({ ...other, [PropertyKey.PRIORITY]: '2' });
      assert.equal(placeByPriority(h, T4), undefined);
      assert.deepEqual(decodeProperties(h.properties), other);
    }
  });

  it('no priority, or one Java reads as none (negative, not a number): nothing changes', () => {
    for (const value of [undefined, '-1', 'high', '1.5']) {
      const props: Record<string, string> =
        value === undefined ? { KEYS: 'k' } : { [PropertyKey.PRIORITY]: value };
      const h = header(props);
      const before = h.properties;
      assert.equal(placeByPriority(h, T4), undefined);
      assert.equal(h.properties, before);
    }
  });
});

describe('POP reading order (Java PopMessageProcessor#popMsgFromTopic)', () => {
  it('a PRIORITY topic reads its queues from the highest down and the retry topic after them', () => {
    for (const r of [0, 10, 50, 99]) {
      assert.deepEqual(
        popPlan(PRIORITY_TOPIC, undefined, false, 4, () => r),
        {
          retryFirst: false,
          queueIds: [3, 2, 1, 0],
        },
      );
    }
  });

  it('an orderly pop, a group with priority.factor 0 and an untyped topic start at a random queue', () => {
    const random = () => 5; // Java's nextInt(100); 5 < popFromRetryProbability 20: retry first
    const descendingFrom = { retryFirst: true, queueIds: [0, 3, 2, 1] }; // (3 + 5) % 4 = 0, then down
    assert.deepEqual(popPlan(PRIORITY_TOPIC, undefined, true, 4, random), descendingFrom);
    const noFactor = { attributes: { [PRIORITY_FACTOR_ATTRIBUTE]: '0' } };
    assert.deepEqual(popPlan(PRIORITY_TOPIC, noFactor, false, 4, random), descendingFrom);
    assert.deepEqual(popPlan(T4, undefined, false, 4, random), descendingFrom);
    assert.equal(popPlan(T4, undefined, false, 4, () => 20).retryFirst, false);
  });

  it('priorityOrderAsc false (a broker option) reads the queues upwards, from the start queue', () => {
    assert.deepEqual(popPlan(PRIORITY_TOPIC, undefined, false, 4, () => 10, false).queueIds, [0, 1, 2, 3]);
    assert.deepEqual(popPlan(T4, undefined, false, 4, () => 5, false).queueIds, [1, 2, 3, 0]);
    assert.throws(() => validateBrokerOptions({ priorityOrderAsc: 'yes' as never }), /priorityOrderAsc/);
    assert.equal(validateBrokerOptions({}).priorityOrderAsc, true);
  });

  it('priority.factor is the share of pops in priority mode', () => {
    const half = { attributes: { [PRIORITY_FACTOR_ATTRIBUTE]: '50' } };
    assert.deepEqual(popPlan(PRIORITY_TOPIC, half, false, 4, () => 49).queueIds, [3, 2, 1, 0]);
    assert.deepEqual(popPlan(PRIORITY_TOPIC, half, false, 4, () => 50).queueIds, [1, 0, 3, 2]);
  });
});

/** Marks `topic` PRIORITY on every broker of `cluster` (attribute storage is the Admin's work). */
function markPriority(cluster: EmbeddedCluster, topic: string): void {
  for (const b of cluster.brokers) {
    const config = b.broker.topics.get(topic);
    assert.ok(config);
    // Attributes change as an UPDATE_AND_CREATE_TOPIC changes them: by `+key=value` text.
    b.broker.topics.update(config, `+${MESSAGE_TYPE_ATTRIBUTE}=PRIORITY`);
    assert.equal(b.broker.topics.get(topic)?.attributes?.[MESSAGE_TYPE_ATTRIBUTE], 'PRIORITY');
  }
}

describe('priority messages on the embedded broker', () => {
  it('the broker stores each in its priority’s queue and answers with that queue', async () => {
    await popScenario({}, 4, async ({ h, topic }) => {
      markPriority(h.cluster, topic);
      const placed: Array<[number, number]> = [];
      for (const priority of [0, 1, 2, 3, 7]) {
        const r = await h.producer.send({ topic, body: `p${priority}`, priority });
        placed.push([priority, r.messageQueue.queueId]);
      }
      assert.deepEqual(placed, [
        [0, 0],
        [1, 1],
        [2, 2],
        [3, 3],
        [7, 3],
      ]);
      const stored = await readTopic(h.cluster, topic, 4);
      for (const s of stored) {
        const priority = Number(s.properties[PropertyKey.PRIORITY]);
        assert.equal(s.queueId, Math.min(priority, 3), `p${priority} stored in its queue`);
      }
    });
  });

  it('a SimpleConsumer on a PRIORITY topic receives higher priorities first, each with its priority', async () => {
    await popScenario({}, 4, async ({ h, topic, consumer }) => {
      markPriority(h.cluster, topic);
      // Lowest first, so store order and priority order disagree.
      for (const priority of [0, 0, 1, 1, 2, 2, 3, 3]) {
        await h.producer.send({ topic, body: `p${priority}`, priority });
      }
      const c = await consumer();
      const got = await receiveAtLeast(c, 8);
      assert.deepEqual(
        got.map((m) => m.priority),
        [3, 3, 2, 2, 1, 1, 0, 0],
      );
      assert.deepEqual(
        got.map((m) => m.body.toString()),
        ['p3', 'p3', 'p2', 'p2', 'p1', 'p1', 'p0', 'p0'],
      );
      for (const m of got) await c.ack(m);
    });
  });
});
