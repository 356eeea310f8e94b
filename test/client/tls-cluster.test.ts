/**
 * A whole cluster over TLS: NameServer and broker in enforcing mode (the broker then registers
 * over TLS too, as Java's does), a producer and a push consumer with `tls`, and credentials on
 * top with ACL on.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import { ConnectError } from '../../src/index.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FAST, waitFor } from '../consumer/helpers.js';
import { makeTestCerts, startEnforcingTlsCluster, type TestCerts } from '../helpers/tls-certs.js';
import { TEST_ACL, USER } from '../server/acl/helpers.js';
import { uniqueName } from '../server/broker/rpc-helpers.js';

describe('cluster over TLS (enforcing) with ACL', () => {
  let certs: TestCerts;
  let cluster: EmbeddedCluster;
  before(async () => {
    certs = makeTestCerts();
    cluster = await startEnforcingTlsCluster(certs, { acl: TEST_ACL });
    await cluster.createTopic('TopicOk', 2);
  });
  after(async () => {
    await cluster.stop();
    certs.cleanup();
  });

  it('a TLS producer with credentials sends and a TLS push consumer receives', async () => {
    const p = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      tls: { ca: certs.ca },
      credentials: USER,
    });
    await p.start();
    const c = new PushConsumer({
      ...FAST,
      consumerGroup: 'GroupA',
      namesrvAddr: cluster.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      tls: { rejectUnauthorized: false },
      credentials: USER,
    });
    try {
      const sent = new Set<string>();
      for (let i = 0; i < 4; i++) sent.add((await p.send({ topic: 'TopicOk', body: `tls${i}` })).msgId);
      const got = new Set<string>();
      c.subscribe('TopicOk');
      await c.start((m: ConsumerMessage) => void got.add(m.msgId));
      await waitFor(() => [...sent].every((id) => got.has(id)), 'all 4 messages consumed over TLS');
    } finally {
      await c.shutdown();
      await p.shutdown();
    }
  });

  it('a producer trusting another CA fails with the ConnectError as cause', async () => {
    const p = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      tls: { ca: certs.otherCa },
      credentials: USER,
      sendMsgTimeout: 2000,
    });
    await p.start();
    try {
      const err = await p.send({ topic: 'TopicOk', body: 'x' }).then(
        () => assert.fail('must not connect'),
        (e: unknown) => e,
      );
      const chain: unknown[] = [];
      for (let e: unknown = err; e instanceof Error; e = e.cause) chain.push(e);
      assert.ok(
        chain.some((e) => e instanceof ConnectError && /certificate/i.test(e.message)),
        String(err),
      );
    } finally {
      await p.shutdown();
    }
  });

  it('the lite pull and simple (POP) consumers read over TLS with credentials', async () => {
    const p = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      tls: { rejectUnauthorized: false },
      credentials: USER,
    });
    await p.start();
    const sent = new Set<string>();
    const lite = new LitePullConsumer({
      consumerGroup: 'GroupA',
      namesrvAddr: cluster.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      tls: { ca: certs.ca },
      credentials: USER,
    });
    const pop = new SimpleConsumer({
      consumerGroup: 'GroupB',
      namesrvAddr: cluster.namesrvAddr,
      subscriptions: { TopicOk: '*' },
      awaitDuration: 1000,
      tls: { rejectUnauthorized: false },
      credentials: USER,
    });
    try {
      for (let i = 0; i < 4; i++) sent.add((await p.send({ topic: 'TopicOk', body: `lp${i}` })).msgId);
      await lite.start();
      lite.assign(await lite.fetchMessageQueues('TopicOk'));
      const pulled = new Set<string>();
      for (let i = 0; i < 50 && ![...sent].every((id) => pulled.has(id)); i++)
        for (const m of await lite.poll(200)) pulled.add(m.msgId);
      assert.ok(
        [...sent].every((id) => pulled.has(id)),
        'lite pull read every message',
      );

      await pop.start();
      const popped = new Set<string>();
      for (let i = 0; i < 30 && ![...sent].every((id) => popped.has(id)); i++)
        for (const m of await pop.receive(32, 10_000)) {
          popped.add(m.msgId);
          await pop.ack(m);
        }
      assert.ok(
        [...sent].every((id) => popped.has(id)),
        'POP received every message',
      );
    } finally {
      await pop.shutdown();
      await lite.shutdown();
      await p.shutdown();
    }
  });
});
