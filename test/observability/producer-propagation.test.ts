/**
 * Which trace context a sent message carries (docs/observability.md §1.2): the producer's span's
 * with propagation on (an app-set `traceparent` overwritten), the application's own with it off
 * (`openTelemetry: false`, the package absent, or no SDK: nothing to propagate).
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { Producer } from '../../src/producer/producer.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { setOpenTelemetryApiForTest } from '../../src/observability/otel/api.js';
import { readTopic, uniqueTopic } from '../producer/cluster-helpers.js';
import { installOtelSdk, traceparentOf, type OtelSdk } from './producer-otel-sdk.js';

const APP_TRACEPARENT = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
const APP_TRACESTATE = 'app=1';

let cluster: EmbeddedCluster;
const producers: Producer[] = [];

async function startProducer(options: Partial<ProducerOptions> = {}): Promise<Producer> {
  const p = new Producer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: `OTEL_PROP_${producers.length}`,
    ...options,
  });
  producers.push(p);
  await p.start();
  return p;
}

/** Sends one message with the app's trace properties and one without; their stored properties. */
async function sendBoth(
  p: Producer,
): Promise<{ appSet: Record<string, string>; plain: Record<string, string> }> {
  const topic = uniqueTopic('OtelProp');
  await cluster.createTopic(topic, 2);
  const a = await p.send({
    topic,
    body: 'app-set',
    properties: { traceparent: APP_TRACEPARENT, tracestate: APP_TRACESTATE, other: 'kept' },
  });
  const b = await p.send({ topic, body: 'plain' });
  const stored = await readTopic(cluster, topic, 2);
  const of = (id: string): Record<string, string> => {
    const m = stored.find((x) => x.properties.UNIQ_KEY === id);
    assert.ok(m, `message ${id} is stored`);
    return m.properties;
  };
  return { appSet: of(a.msgId), plain: of(b.msgId) };
}

describe('trace context in sent messages', () => {
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
  });
  after(async () => {
    for (const p of producers.splice(0)) await p.shutdown();
    await cluster.stop();
    setOpenTelemetryApiForTest(undefined);
  });

  it('with no SDK registered: nothing is written and an app-set traceparent is kept', async () => {
    const p = await startProducer();
    const { appSet, plain } = await sendBoth(p);
    assert.equal(appSet.traceparent, APP_TRACEPARENT);
    assert.equal(appSet.tracestate, APP_TRACESTATE);
    assert.equal(plain.traceparent, undefined);
  });

  describe('with the SDK registered', () => {
    let sdk: OtelSdk;
    before(() => {
      sdk = installOtelSdk(false);
    });
    after(() => sdk.uninstall());

    it("propagation on: the producer's span context overwrites an app-set traceparent and tracestate", async () => {
      const p = await startProducer();
      const { appSet, plain } = await sendBoth(p);
      const spans = sdk.spans().filter((s) => s.name.startsWith('send OtelProp'));
      assert.equal(spans.length, 2);
      const parents = spans.map(traceparentOf);
      assert.ok(parents.includes(appSet.traceparent as string), 'the app-set one is overwritten by its span');
      assert.ok(parents.includes(plain.traceparent as string));
      assert.notEqual(appSet.traceparent, APP_TRACEPARENT);
      // A span with no trace state writes none: the app's is dropped with its traceparent.
      assert.equal(appSet.tracestate, undefined);
      assert.equal(appSet.other, 'kept');
    });

    it('openTelemetry: false: no span, nothing written, the app-set traceparent kept', async () => {
      sdk.reset();
      const p = await startProducer({ openTelemetry: false });
      const { appSet, plain } = await sendBoth(p);
      assert.equal(sdk.spans().length, 0);
      assert.equal(appSet.traceparent, APP_TRACEPARENT);
      assert.equal(appSet.tracestate, APP_TRACESTATE);
      assert.equal(plain.traceparent, undefined);
    });

    it('the package absent: no span, nothing written, the app-set traceparent kept', async () => {
      sdk.reset();
      setOpenTelemetryApiForTest(null);
      try {
        const p = await startProducer();
        const { appSet, plain } = await sendBoth(p);
        assert.equal(sdk.spans().length, 0);
        assert.equal(appSet.traceparent, APP_TRACEPARENT);
        assert.equal(plain.traceparent, undefined);
      } finally {
        setOpenTelemetryApiForTest(undefined);
      }
    });
  });
});
