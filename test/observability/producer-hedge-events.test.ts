/**
 * A hedged send's span (docs/observability.md §1.1): the hedge as a `send hedge` event between
 * the attempts, through the send loop's observer, with a hand-settled transport (no wall-clock
 * assertion: the hedge fires on the 15 ms floor and the test waits for it to be issued).
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import { SendHedger, WARM_SAMPLES } from '../../src/producer/hedge.js';
import { prepareMessage } from '../../src/producer/message.js';
import { runSend, type SendTransport } from '../../src/producer/send-loop.js';
import { ProducerTelemetry, SendEvent } from '../../src/producer/send-telemetry.js';
import { clientTelemetry } from '../../src/observability/otel/api.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { TimeoutError } from '../../src/errors.js';
import { fakeHost, routeOf, sendLoopSettings, sendResponse } from '../producer/helpers.js';
import { installOtelSdk, type OtelSdk } from './producer-otel-sdk.js';

interface Pending {
  broker: string;
  resolve: () => void;
  fail: () => void;
}

function handTransport(): SendTransport & { pending: Pending[] } {
  const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }));
  const pending: Pending[] = [];
  return {
    pending,
    publishInfo: () => tp,
    brokerAddress: (name) => `127.0.0.1:${name === 'broker-a' ? 10911 : 10921}`,
    request: (address, cmd: RemotingCommand, timeoutMs) =>
      new Promise<RemotingCommand>((resolve, reject) => {
        pending.push({
          broker: address,
          resolve: () => resolve(sendResponse(cmd)),
          fail: () => reject(new TimeoutError(address, cmd.code, timeoutMs)),
        });
      }),
    oneway: () => Promise.resolve(),
  };
}

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 2));
}

describe('a hedged send on its span', () => {
  let sdk: OtelSdk;
  before(() => {
    sdk = installOtelSdk(false);
  });
  after(() => sdk.uninstall());

  it('shows the first attempt, the hedge to the other broker, and the winning attempt', async () => {
    const host = fakeHost();
    host.now = Date.now;
    const strategy = new AdaptiveFaultStrategy(host);
    const hedger = new SendHedger(
      { multiplier: 10, floorMs: 15 },
      (b, ms) => strategy.onOverdue(b, ms),
      () => {},
    );
    for (let i = 0; i < WARM_SAMPLES; i++) hedger.record('warmed-broker', 1);
    const t = handTransport();
    const telemetry = new ProducerTelemetry(clientTelemetry(true)!, {
      clientId: '127.0.0.1@test',
      producerGroup: 'PG',
      namespace: undefined,
    });
    telemetry.start();
    const message = { topic: 'T', body: 'hedged' };
    const span = telemetry.beginSend(message, undefined, false);
    assert.ok(span);
    const p = prepareMessage(
      message,
      { maxMessageSize: 1e6, compressMsgBodyOverHowmuch: 4096, compressLevel: 5, namespace: undefined },
      new UniqIdGenerator(),
      span.fields,
    );
    const send = runSend(p, false, t, strategy, sendLoopSettings({ hedger }), undefined, undefined, span);
    span.watch(send, p.msgId);
    await until(() => t.pending.length === 2);
    const [first, second] = t.pending as [Pending, Pending];
    second.resolve();
    const r = await send;
    first.fail();
    await new Promise((resolve) => setImmediate(resolve));
    const [finished] = sdk.spans();
    assert.ok(finished);
    assert.equal(finished.name, 'send T');
    const names = finished.events.map((e) => e.name);
    assert.deepEqual(
      names,
      [SendEvent.HEDGE, SendEvent.ATTEMPT],
      'the hedge, then the winning attempt; the span ended with it',
    );
    const [hedge, won] = finished.events;
    assert.notEqual(hedge?.attributes?.['messaging.rocketmq.broker_name'], r?.messageQueue.brokerName);
    assert.equal(hedge?.attributes?.['messaging.rocketmq.hedge.broker_name'], r?.messageQueue.brokerName);
    assert.equal(won?.attributes?.['messaging.rocketmq.broker_name'], r?.messageQueue.brokerName);
    assert.equal(won?.attributes?.['messaging.rocketmq.broker_address'], second.broker);
    assert.equal(finished.attributes['server.address'], '127.0.0.1');
    assert.equal(finished.attributes['messaging.message.id'], p.msgId);
  });
});
