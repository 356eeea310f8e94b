import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { clientInstances } from '../../src/client/instance-registry.js';
import type { ConsumeTraceContext } from '../../src/consumer/core/handler-pool.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { IllegalStateError, InvalidArgumentError } from '../../src/errors.js';
import { CONSUME_CHANNEL } from '../../src/observability/channels.js';
import { ResponseCode, RequestCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { parseFastjsonBytes } from '../../src/protocol/fastjson.js';
import { encodeMessageQueueMap } from '../../src/protocol/body/message-queue-map.js';
import { harness, scenario, unique, waitFor } from './helpers.js';

test('bad input: group, topic, expression and handler are rejected naming the field', async () => {
  assert.throws(
    () => new PushConsumer({ consumerGroup: 'a b', namesrvAddr: '127.0.0.1:9876' }),
    InvalidArgumentError,
  );
  const c = new PushConsumer({ consumerGroup: 'GoodGroup', namesrvAddr: '127.0.0.1:9876' });
  const field = (fn: () => unknown, name: string) =>
    assert.throws(fn, (e: unknown) => e instanceof InvalidArgumentError && e.field === name);
  field(() => c.subscribe('bad topic'), 'topic');
  field(() => c.subscribe('%RETRY%x'), 'topic');
  field(() => c.subscribe('T', 'A || * '), 'expression');
  field(() => c.subscribe('T', { sql: 'a >' }), 'expression');
  field(() => c.subscribe('T', { sql: '' }), 'expression');
  c.subscribe('T', 'TagA || TagB');
  c.subscribe('T2', { sql: 'a > 5 AND b IS NOT NULL' });
  await assert.rejects(
    c.start('nope' as never),
    (e: unknown) => e instanceof InvalidArgumentError && e.field === 'handler',
  );
  await assert.rejects(c.start({} as never), InvalidArgumentError);
  const empty = new PushConsumer({ consumerGroup: 'GoodGroup2', namesrvAddr: '127.0.0.1:9876' });
  await assert.rejects(
    empty.start(() => undefined),
    IllegalStateError,
  );
  await c.shutdown();
});

test('tags and SQL92 filter what the handler sees; the message carries every field', async () => {
  const h = await harness({ brokers: 1, brokerOptions: { enablePropertyFilter: true } });
  try {
    const topic = unique('Filter');
    const sqlTopic = unique('Sql');
    const group = unique('GF');
    await h.cluster.createTopic(topic, 2);
    await h.cluster.createTopic(sqlTopic, 2);
    const got: ConsumerMessage[] = [];
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, 'TagA || TagB');
    c.subscribe(sqlTopic, { sql: 'n > 5' });
    await c.start((m: ConsumerMessage) => {
      got.push(m);
    });
    await h.send(topic, 9, (i) => ['TagA', 'TagB', 'TagC'][i % 3]);
    for (let i = 0; i < 10; i++)
      await h.producer.send({
        topic: sqlTopic,
        body: `s${i}`,
        keys: ['k1', 'k2'],
        properties: { n: String(i) },
      });
    await waitFor(() => got.length === 6 + 4, 'the matching messages');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(got.length, 10);
    assert.ok(got.filter((m) => m.topic === topic).every((m) => m.tags === 'TagA' || m.tags === 'TagB'));
    const sql = got.filter((m) => m.topic === sqlTopic);
    assert.deepEqual(
      sql.map((m) => Number(m.properties.n)).sort((a, b) => a - b),
      [6, 7, 8, 9],
    );
    const m = sql[0]!;
    assert.deepEqual(m.keys, ['k1', 'k2']);
    assert.equal(m.queue.topic, sqlTopic);
    assert.equal(m.queue.brokerName, 'broker-a');
    assert.ok(m.msgId.length > 0 && m.offsetMsgId.length > 0);
    assert.equal(m.reconsumeTimes, 0);
    assert.ok(m.bornTimestamp > 0 && m.storeTimestamp >= m.bornTimestamp);
    assert.ok(m.storeHost.port > 0 && m.bornHost.address.length > 0);
  } finally {
    await h.close();
  }
});

test('lag, pause/resume, events, the consume channel and GET_CONSUMER_RUNNING_INFO', async () => {
  const h = await harness({ brokers: 1 });
  const spans: ConsumeTraceContext[] = [];
  const onStart = (ctx: unknown): void => {
    spans.push(ctx as ConsumeTraceContext);
  };
  diagnosticsChannel.subscribe(`tracing:${CONSUME_CHANNEL}:start`, onStart);
  try {
    const topic = unique('Api');
    const group = unique('GA');
    await h.cluster.createTopic(topic, 2);
    let consumed = 0;
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    const committed: number[] = [];
    c.on('offsetsCommitted', (e) => committed.push(e.offsets.length));
    const rebalances: string[] = [];
    c.on('rebalance', (e) => rebalances.push(e.topic));
    c.subscribe(topic);
    await c.start(() => {
      consumed++;
    });
    assert.ok(rebalances.includes(topic));
    c.pause([topic]);
    await new Promise((r) => setTimeout(r, 1200)); // an in-flight long poll may still deliver
    const before = consumed;
    await h.send(topic, 10);
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(consumed, before, 'paused: nothing consumed');
    const lag = await c.lag();
    assert.equal(
      lag.reduce((a, q) => a + q.lag, 0),
      10 - before,
    );
    c.resume();
    await waitFor(() => consumed === 10, 'consumption after resume');
    await waitFor(() => committed.length > 0, 'an offsetsCommitted event');

    assert.ok(spans.length >= 10 && spans.every((s) => s.consumerGroup === group));
    // What `mqadmin consumerStatus` asks through the broker.
    const instance = clientInstances().find((i) => i.clientId === c.clientId)!;
    const response = await instance.inbound.dispatch(
      createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, {
        consumerGroup: group,
        clientId: c.clientId,
        jstackEnable: 'false',
      }),
      { remoteAddress: '127.0.0.1:1' } as never,
    );
    assert.equal(response?.code, ResponseCode.SUCCESS);
    const info = parseFastjsonBytes(response!.body!) as Record<string, unknown>;
    assert.equal((info.properties as Record<string, string>).PROP_CONSUME_TYPE, 'CONSUME_PASSIVELY');
    assert.ok(info.mqTable instanceof Map && info.mqTable.size >= 2, 'mqTable keyed by MessageQueue objects');
    const unknown = await instance.inbound.dispatch(
      createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'nobody', clientId: c.clientId }),
      { remoteAddress: '127.0.0.1:1' } as never,
    );
    assert.equal(unknown?.code, ResponseCode.SYSTEM_ERROR);
  } finally {
    diagnosticsChannel.unsubscribe(`tracing:${CONSUME_CHANNEL}:start`, onStart);
    await h.close();
  }
});

test('RESET_CONSUMER_CLIENT_OFFSET rewinds a running consumer; GET_CONSUMER_STATUS_FROM_CLIENT reports offsets', async () => {
  await scenario({ brokers: 1 }, 2, async ({ h, topic, group }) => {
    const seen = new Map<string, number>();
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic);
    await c.start((m: ConsumerMessage) => {
      seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
    });
    const ids = await h.send(topic, 10);
    await waitFor(() => seen.size === 10, 'the first pass');
    const instance = clientInstances().find((i) => i.clientId === c.clientId)!;
    const conn = { remoteAddress: '127.0.0.1:1' } as never;
    const status = await instance.inbound.dispatch(
      createRequest(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, { topic, group }),
      conn,
    );
    const table = (parseFastjsonBytes(status!.body!) as { messageQueueTable: Map<unknown, number> })
      .messageQueueTable;
    assert.equal(
      [...table.values()].reduce((a, b) => a + b, 0),
      10,
      'committed offsets cover the ten messages',
    );
    const queues = [0, 1].map((queueId) => ({ topic, brokerName: 'broker-a', queueId }));
    const body = Buffer.from(`{"offsetTable":${encodeMessageQueueMap(queues.map((q) => [q, 0] as const))}}`);
    await instance.inbound.dispatch(
      {
        ...createRequest(
          RequestCode.RESET_CONSUMER_CLIENT_OFFSET,
          { topic, group, timestamp: '0', isForce: 'true' },
          body,
        ),
        flag: 2,
      },
      conn,
    );
    await waitFor(
      () => ids.every((id) => seen.get(id) === 2),
      'every message consumed again after the reset',
    );
  });
});

test('subscribing a topic differently from another member of the group warns', async () => {
  const warnings: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (msg: string) => void warnings.push(msg) };
  const group = unique('GW');
  const a = new PushConsumer({ consumerGroup: group, namesrvAddr: '127.0.0.1:9876', logger });
  const b = new PushConsumer({ consumerGroup: group, namesrvAddr: '127.0.0.1:9876', logger });
  a.subscribe('T', 'TagA');
  b.subscribe('T', 'TagA');
  assert.equal(warnings.length, 0);
  b.subscribe('T', 'TagB');
  assert.ok(warnings.some((w) => w.includes('different expression')));
  await a.shutdown();
  await b.shutdown();
});

test('an SQL92 subscription on brokers without property filtering fails at start (CHECK_CLIENT_CONFIG)', async () => {
  await scenario(
    { brokers: 1, brokerOptions: { enablePropertyFilter: false } },
    1,
    async ({ h, topic, group }) => {
      const c = h.consumer({ consumerGroup: group });
      c.subscribe(topic, { sql: 'a > 1' });
      await assert.rejects(
        c.start(() => undefined),
        (e: unknown) =>
          e instanceof InvalidArgumentError && e.field === 'expression' && /broker-a/.test(e.message),
      );
      assert.equal(c.running, false);
    },
  );
});

test('eachBatch gets up to consumeMessageBatchMaxSize messages per call; a plain handler always one', async () => {
  await scenario({ brokers: 1 }, 1, async ({ h, topic, group }) => {
    await h.send(topic, 20);
    const sizes: number[] = [];
    const batch = h.consumer({
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeMessageBatchMaxSize: 8,
    });
    batch.subscribe(topic);
    await batch.start({
      eachBatch: (messages: ConsumerMessage[]) => {
        sizes.push(messages.length);
      },
    });
    await waitFor(() => sizes.reduce((a, b) => a + b, 0) === 20, 'every message in batches');
    assert.ok(sizes.every((n) => n >= 1 && n <= 8));
    assert.ok(
      sizes.some((n) => n > 1),
      `some calls got several messages: ${sizes.join(',')}`,
    );
    const single: string[] = [];
    const one = h.consumer({
      consumerGroup: `${group}_single`,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeMessageBatchMaxSize: 8,
    });
    one.subscribe(topic);
    await one.start((m: ConsumerMessage) => {
      single.push(m.msgId);
    });
    await waitFor(() => single.length === 20, 'every message, one per call');
  });
});
