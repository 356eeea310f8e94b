/**
 * Producer metrics against the embedded cluster with the SDK's MeterProvider in memory
 * (docs/observability.md §2.1): counts and labels against what was sent.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { JavaMetric, JavaMetricBuckets, MessagingMetric } from '../../src/observability/otel/attributes.js';
import { uniqueTopic } from '../producer/cluster-helpers.js';
import { installOtelSdk, pointsOf, type OtelSdk } from './producer-otel-sdk.js';

let cluster: EmbeddedCluster;
let sdk: OtelSdk;

describe('producer metrics', () => {
  before(async () => {
    sdk = installOtelSdk();
    cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
  });
  after(async () => {
    await cluster.stop();
    await sdk.uninstall();
  });

  it('sent messages, operation duration and rocketmq_send_cost_time count what was sent; failures are labelled', async () => {
    const topic = uniqueTopic('OtelMetrics');
    await cluster.createTopic(topic, 2);
    const p = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'OTEL_METRICS',
      retryTimesWhenSendFailed: 0,
    });
    await p.start();
    try {
      for (let i = 0; i < 3; i++) await p.send({ topic, body: `single ${i}` });
      await p.sendBatch([0, 1, 2, 3].map((i) => ({ topic, body: `batch ${i}` })));
      await p.sendOneway({ topic, body: 'oneway' });
      cluster.broker('broker-a').faults.set({ errorCode: ResponseCode.SYSTEM_BUSY });
      try {
        await assert.rejects(p.send({ topic, body: 'refused' }));
      } finally {
        cluster.broker('broker-a').faults.clear();
      }
      await new Promise((r) => setImmediate(r));
      await sdk.collect();

      const sent = sdk.metric(MessagingMetric.SENT_MESSAGES);
      const ok = pointsOf(sent, { 'messaging.destination.name': topic }).filter(
        (d) => d.attributes['error.type'] === undefined,
      );
      assert.equal(ok.length, 1);
      assert.equal(ok[0]?.value, 3 + 4 + 1, 'every message sent, batch messages each');
      const failed = pointsOf(sent, { 'messaging.destination.name': topic, 'error.type': 'SendFailedError' });
      assert.equal(failed[0]?.value, 1);
      assert.equal(ok[0]?.attributes['messaging.system'], 'rocketmq');
      assert.equal(ok[0]?.attributes['messaging.operation.name'], 'send');

      const duration = sdk.metric(MessagingMetric.OPERATION_DURATION);
      assert.equal(duration?.descriptor.unit, 's');
      const calls = pointsOf(duration, { 'messaging.destination.name': topic });
      const callCount = calls.reduce((n, d) => n + (d.value as Histogram).count, 0);
      assert.equal(callCount, 3 + 1 + 1 + 1, 'one measurement per send call');

      const cost = sdk.metric(JavaMetric.SEND_COST_TIME);
      assert.equal(cost?.descriptor.unit, 'ms');
      const success = pointsOf(cost, { topic, client_id: p.clientId, invocation_status: 'success' });
      const failure = pointsOf(cost, { topic, client_id: p.clientId, invocation_status: 'failure' });
      assert.equal((success[0]?.value as Histogram | undefined)?.count, 5);
      assert.equal((failure[0]?.value as Histogram | undefined)?.count, 1);
      assert.deepEqual((success[0]?.value as Histogram).buckets.boundaries, [
        ...JavaMetricBuckets.SEND_COST_TIME,
      ]);
    } finally {
      await p.shutdown();
    }
  });
});
