import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  BrokerResponseError,
  InvalidArgumentError,
  ReplyNotPossibleError,
  RequestTimeoutError,
} from '../../src/errors.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PropertyKey } from '../../src/protocol/message/properties.js';
import { replyTopicOf } from '../../src/protocol/headers/reply.js';
import { pendingRequestCount } from '../../src/producer/request-reply.js';
import { scenario, waitFor } from '../consumer/helpers.js';
import { readTopic, waitFor as waitUntil } from './cluster-helpers.js';

test('request-reply: a responder replies from its handler and the requester gets that reply', async () => {
  await scenario({ brokers: 2 }, 2, async ({ h, topic, group }) => {
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic);
    const requests: ConsumerMessage[] = [];
    await c.start(async (m: ConsumerMessage) => {
      requests.push(m);
      await c.reply(m, `echo:${m.body.toString()}`, { handledBy: 'node' });
    });
    const replies = await Promise.all(
      [1, 2, 3].map((i) => h.producer.request({ topic, body: `ping${i}`, tags: 'rpc' }, 8000)),
    );
    assert.deepEqual(
      replies.map((r) => r.body.toString()),
      ['echo:ping1', 'echo:ping2', 'echo:ping3'],
    );
    const first = replies[0]!;
    assert.equal(first.topic, replyTopicOf('DefaultCluster'));
    assert.equal(first.systemProperties[PropertyKey.MSG_TYPE], 'reply');
    assert.equal(first.systemProperties[PropertyKey.CORRELATION_ID], first.correlationId);
    assert.equal(first.properties['handledBy'], 'node');
    // The request carried what a Java responder needs.
    const req = requests.find((m) => m.body.toString() === 'ping1')!;
    assert.equal(req.systemProperties[PropertyKey.REPLY_TO_CLIENT], h.producer.clientId);
    assert.equal(req.systemProperties[PropertyKey.TTL], '8000');
    assert.equal(req.systemProperties[PropertyKey.CLUSTER], 'DefaultCluster');
    assert.equal(pendingRequestCount(), 0, 'no pending entry left');
    // The broker also stores each reply in the reply topic (storeReplyMessageEnable), after the push.
    await waitUntil(
      async () => (await readTopic(h.cluster, replyTopicOf('DefaultCluster'), 1)).length === 3,
      10_000,
      'the stored replies',
    );
  });
});

test('request-reply: a request nobody answers rejects with RequestTimeoutError and leaves no entry', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic }) => {
    await assert.rejects(
      h.producer.request({ topic, body: 'nobody listens' }, 300),
      (e: unknown) => e instanceof RequestTimeoutError && e.timeoutMs === 300,
    );
    assert.equal(pendingRequestCount(), 0);
    // Bad input rejects before anything is registered.
    await assert.rejects(
      h.producer.request({ topic, body: 'x' }, 0),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'timeoutMs',
    );
    await assert.rejects(
      h.producer.request({ topic, body: '' }, 1000),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'body',
    );
    assert.equal(pendingRequestCount(), 0);
  });
});

test('request-reply: replying to a plain message or to a client the broker does not know is a typed error', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic);
    const got: ConsumerMessage[] = [];
    await c.start((m: ConsumerMessage) => void got.push(m));
    await h.producer.send({ topic, body: 'plain' });
    await waitFor(() => got.length === 1, 'the plain message');
    await assert.rejects(c.reply(got[0]!, 'x'), ReplyNotPossibleError);
    const forged = {
      ...got[0]!,
      systemProperties: {
        ...got[0]!.systemProperties,
        [PropertyKey.CORRELATION_ID]: 'c-1',
        [PropertyKey.REPLY_TO_CLIENT]: '127.0.0.9@gone',
      },
    };
    await assert.rejects(
      c.reply(forged, 'x'),
      (e: unknown) =>
        e instanceof BrokerResponseError && /channel of <127\.0\.0\.9@gone> not found/.test(e.message),
    );
  });
});
