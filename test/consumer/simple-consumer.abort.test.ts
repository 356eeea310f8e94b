/**
 * SimpleConsumer with an AbortSignal and as an async iterable, on an embedded cluster (its
 * broker serves POP): aborted before the call nothing is sent; a receive aborted during its long
 * poll parks its POP, and the next receive gets what that POP brings (no message waits out its
 * invisible time for nobody); `for await` acks each message when the loop asks for the next,
 * never the one it breaks or throws on, and ends at shutdown.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InvalidArgumentError } from '../../src/errors.js';
import { AbortError } from '../../src/errors/abort.js';
import { RequestCode } from '../../src/protocol/codes.js';
import type { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { ParkedPops } from '../../src/consumer/simple/parked-pops.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { countRequests } from '../helpers/request-counter.js';
import { capturingLogger } from '../remoting/helpers.js';
import { popScenario, receiveAtLeast } from './simple-consumer-helpers.js';
import { waitFor } from './helpers.js';

function aborted(): AbortSignal {
  const c = new AbortController();
  c.abort();
  return c.signal;
}

function parkedOf(c: SimpleConsumer): ParkedPops {
  return (c as unknown as { parked: ParkedPops }).parked;
}

test('receive, ack and changeInvisibleDuration aborted before the call reject at once and send nothing', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    await h.send(topic, 1);
    const c = await consumer();
    const [m] = await receiveAtLeast(c, 1, 5000);
    assert.ok(m !== undefined);
    const counter = countRequests([
      RequestCode.POP_MESSAGE,
      RequestCode.ACK_MESSAGE,
      RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
    ]);
    try {
      const signal = aborted();
      await assert.rejects(c.receive(1, undefined, { signal }), AbortError);
      await assert.rejects(c.ack(m, { signal }), AbortError);
      await assert.rejects(c.changeInvisibleDuration(m, 5000, { signal }), AbortError);
      assert.equal(counter.count(), 0);
      assert.deepEqual(parkedOf(c).size, { parked: 0, leftover: 0 });
      await c.ack(m);
      assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
    } finally {
      counter.stop();
    }
  });
});

test('a signal that is not an AbortSignal is an InvalidArgumentError', async () => {
  await popScenario({}, 1, async ({ consumer }) => {
    const c = await consumer();
    const bad = { signal: {} as AbortSignal };
    await assert.rejects(c.receive(1, undefined, bad), InvalidArgumentError);
    assert.throws(() => c.messages(bad), InvalidArgumentError);
    assert.throws(() => c.messages({ maxMessages: 33 }), InvalidArgumentError);
    assert.throws(() => c.messages({ maxMessage: 3 } as object), /did you mean/);
  });
});

test('a receive aborted during its long poll parks its POP: the next receive gets the message it brings', async () => {
  await popScenario({}, 2, async ({ h, topic, consumer }) => {
    const c = await consumer({ awaitDuration: 60_000 });
    const pops = countRequests([RequestCode.POP_MESSAGE]);
    try {
      const controller = new AbortController();
      const waiting = c.receive(4, undefined, { signal: controller.signal });
      await waitFor(() => pops.count() === 1, 'the POP on the wire');
      controller.abort();
      await assert.rejects(waiting, AbortError);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
      assert.equal(parkedOf(c).size.parked, 1);
      // The broker answers the parked POP with this message; the next receive sends no POP of its own.
      const [sent] = await h.send(topic, 1);
      const got = await c.receive(4);
      assert.deepEqual(
        got.map((m) => m.msgId),
        [sent],
      );
      assert.equal(pops.count(), 1);
      assert.deepEqual(parkedOf(c).size, { parked: 0, leftover: 0 });
      await c.ack(got[0]!);
      assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
    } finally {
      pops.stop();
    }
  });
});

test('for await: each message is acked when the loop asks for the next; the one it breaks on is not', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 5);
    const logger = capturingLogger();
    const c = await consumer({ logger });
    const seen: PoppedMessage[] = [];
    for await (const m of c) {
      seen.push(m);
      // The body may ack by itself: the loop then does not ack it again.
      if (seen.length === 1) await c.ack(m);
      if (seen.length === 3) break;
    }
    assert.deepEqual(
      seen.map((m) => m.msgId),
      sent.slice(0, 3),
    );
    // The first two are acked, the third is not; the rest (received with them or not) comes next.
    const rest = await receiveAtLeast(c, 2, 5000);
    assert.deepEqual(rest.map((m) => m.msgId).sort(), sent.slice(3).sort());
    for (const m of rest) await c.ack(m);
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 1, 'only the message the loop broke on');
    assert.equal(
      logger.entries.filter((e) => /ack of an iterated message failed/.test(e.msg)).length,
      0,
      'no second ack of the message the body acked',
    );
  });
});

test('for await: a loop body that throws leaves its message un-acked; it comes back', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    const [sent] = await h.send(topic, 1);
    const c = await consumer();
    await assert.rejects(async () => {
      for await (const m of c.messages({ invisibleDurationMs: 1000 })) {
        assert.equal(m.msgId, sent);
        throw new Error('handler failed');
      }
    }, /handler failed/);
    const again = await receiveAtLeast(c, 1, 10_000);
    assert.equal(again[0]?.msgId, sent);
    assert.equal(again[0]?.reconsumeTimes, 1);
    await c.ack(again[0]!);
  });
});

test('messages({ signal }): an abort ends the loop with AbortError; the loop ends by itself at shutdown', async () => {
  await popScenario({}, 1, async ({ h, topic, consumer }) => {
    const c = await consumer({ awaitDuration: 60_000 });
    const pops = countRequests([RequestCode.POP_MESSAGE]);
    try {
      const controller = new AbortController();
      const loop = (async () => {
        for await (const m of c.messages({ signal: controller.signal })) void m;
      })();
      await waitFor(() => pops.count() === 1, 'the POP on the wire');
      controller.abort();
      await assert.rejects(loop, AbortError);
      // What the parked POP brings goes to the next loop.
      const [sent] = await h.send(topic, 1);
      let got: string | undefined;
      const next = (async () => {
        for await (const m of c) {
          got = m.msgId;
          await c.shutdown();
        }
      })();
      await next;
      assert.equal(got, sent);
    } finally {
      pops.stop();
    }
  });
});
