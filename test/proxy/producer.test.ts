import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Producer } from '../../src/producer/producer.js';
import { Connection } from '../../src/remoting/connection.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { GetRouteInfoByTopic, parseTopicRouteData } from '../../src/protocol/headers/route.js';
import { PropertyKey } from '../../src/protocol/message/properties.js';
import { readTopic, waitFor } from '../producer/cluster-helpers.js';
import { unique } from '../consumer/helpers.js';
import { brokersOf, proxyScenario } from './helpers.js';

test('fake proxy: routes name the proxy as every broker, NOTIFICATION is not served, a send without bname is refused', async () => {
  await proxyScenario(2, async ({ proxy, topic }) => {
    const conn = await Connection.connect(proxy.address);
    try {
      const route = await conn.request(
        createRequest(GetRouteInfoByTopic.code, GetRouteInfoByTopic.encode({ topic })),
        5000,
      );
      assert.equal(route.code, ResponseCode.SUCCESS);
      const data = parseTopicRouteData(route.body!);
      assert.deepEqual(data.brokerDatas.map((b) => b.brokerName).sort(), ['broker-a', 'broker-b']);
      for (const b of data.brokerDatas) assert.deepEqual(b.brokerAddrs, { '0': proxy.address });
      const notification = await conn.request(createRequest(RequestCode.NOTIFICATION, {}), 5000);
      assert.equal(notification.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
      const noBname = await conn.request(
        createRequest(RequestCode.GET_MAX_OFFSET, { topic, queueId: '0' }),
        5000,
      );
      assert.equal(noBname.code, ResponseCode.VERSION_NOT_SUPPORTED);
      assert.deepEqual(proxy.refused, [RequestCode.NOTIFICATION]);
    } finally {
      conn.close();
    }
  });
});

test('producer through the proxy: normal, delay and batch sends reach both brokers behind it', async () => {
  await proxyScenario(2, async ({ cluster, proxy, topic, own }) => {
    const producer = own(new Producer({ namesrvAddr: proxy.address, producerGroup: unique('PP') }));
    await producer.start();
    const results = [];
    for (let i = 0; i < 20; i++) results.push(await producer.send({ topic, body: `n${i}` }));
    assert.deepEqual(brokersOf(results.map((r) => r.messageQueue)), ['broker-a', 'broker-b']);
    const delayed = await producer.send({ topic, body: 'delayed', deliverAfterMs: 300 });
    const batch = await producer.sendBatch([0, 1, 2].map((i) => ({ topic, body: `b${i}` })));
    assert.equal(batch.msgId.split(',').length, 3);
    await waitFor(
      async () => (await readTopic(cluster, topic, 2)).some((m) => m.body.toString() === 'delayed'),
      20_000,
      'the delay message to come due',
    );
    const stored = await readTopic(cluster, topic, 2);
    const bodies = stored.map((m) => m.body.toString()).sort();
    const expected = [...results.map((_, i) => `n${i}`), 'delayed', 'b0', 'b1', 'b2'].sort();
    assert.deepEqual(bodies, expected, 'every message stored once');
    const due = stored.find((m) => m.body.toString() === 'delayed')!;
    assert.equal(due.properties[PropertyKey.UNIQ_KEY], delayed.msgId);
    assert.equal(brokersOf(stored).length, 2);
    // Only the timer question (GET_BROKER_CONFIG, once per address): the Proxy's refusal carries
    // its 5.x version, which says the timer wheel is there (src/producer/timer.ts).
    assert.deepEqual(proxy.refused, [RequestCode.GET_BROKER_CONFIG]);
  });
});
