import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  BrokerResponseError,
  ConnectError,
  ConnectionClosedError,
  IllegalStateError,
  ProtocolError,
  TimeoutError,
  SendFailedError,
  SendResultUnknownError,
} from '../../src/errors.js';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import {
  NoFaultStrategy,
  type LatencyFaultStrategy,
} from '../../src/producer/fault/latency-fault-tolerance.js';
import { Java49FaultStrategy } from '../../src/producer/fault/java-4.9.js';
import { prepareMessage } from '../../src/producer/message.js';
import { runSend, type SendLoopSettings, type SendTransport } from '../../src/producer/send-loop.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { fakeHost, routeOf, sendLoopSettings, sendResponse } from './helpers.js';

type Behaviour = (cmd: RemotingCommand, timeoutMs: number) => Promise<RemotingCommand>;

const ok = sendResponse;

function transport(brokers: Record<string, Behaviour>): SendTransport & { calls: string[] } {
  const tp = new TopicPublishInfo('T', routeOf(Object.fromEntries(Object.keys(brokers).map((b) => [b, 2]))));
  const calls: string[] = [];
  return {
    calls,
    publishInfo: () => Promise.resolve(tp),
    brokerAddress: (name) => (name in brokers ? name : undefined),
    request: (address, cmd, timeoutMs) => {
      calls.push(address);
      return (brokers[address] as Behaviour)(cmd, timeoutMs);
    },
    oneway: (address) => {
      calls.push(address);
      return Promise.resolve();
    },
  };
}

const settings = sendLoopSettings;

const ids = new UniqIdGenerator();
const msg = () =>
  prepareMessage(
    { topic: 'T', body: 'x' },
    { maxMessageSize: 1e6, compressMsgBodyOverHowmuch: 4096, compressLevel: 5, namespace: undefined },
    ids,
  );
/** A clock tests move by hand; `hang` is a broker that answers nothing until the attempt's timeout. */
function manualClock(): { now: number; read: () => number; timeouts: number[]; hang: Behaviour } {
  const c = {
    now: 1_000_000,
    timeouts: [] as number[],
    read: (): number => c.now,
    hang: (cmd: RemotingCommand, timeoutMs: number): Promise<RemotingCommand> => {
      c.timeouts.push(timeoutMs);
      c.now += timeoutMs;
      return Promise.reject(new TimeoutError('h', cmd.code, timeoutMs));
    },
  };
  return c;
}

/** Sends to two brokers that never answer (manual clock); the send must fail with SendFailedError. */
async function sendToHungBrokers(
  over: Partial<SendLoopSettings>,
): Promise<{ err: SendFailedError; timeouts: number[]; calls: number }> {
  const clock = manualClock();
  const t = transport({ a: clock.hang, b: clock.hang });
  const err = await runSend(
    msg(),
    false,
    t,
    new NoFaultStrategy(),
    settings({ ...over, clock: clock.read }),
  ).then(
    () => assert.fail('the send succeeded'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof SendFailedError, String(err));
  return { err, timeouts: clock.timeouts, calls: t.calls.length };
}

const succeed: Behaviour = (cmd) => Promise.resolve(ok(cmd));
const busy: Behaviour = (cmd) => Promise.resolve({ ...ok(cmd, 2), remark: 'busy' });
const refuse: Behaviour = () => Promise.reject(new ConnectError('x', 'refused'));

describe('send loop', () => {
  it('a retriable broker code retries on another broker', async () => {
    for (const strategy of [
      new NoFaultStrategy(),
      new Java49FaultStrategy(fakeHost()),
      new AdaptiveFaultStrategy(fakeHost()),
    ] as LatencyFaultStrategy[]) {
      for (let i = 0; i < 10; i++) {
        const t = transport({ a: busy, b: succeed });
        const r = await runSend(msg(), false, t, strategy, settings());
        assert.equal(r?.messageQueue.brokerName, 'b');
        assert.ok(t.calls.length <= 2);
      }
    }
  });

  it('a non-retriable code rejects at once with BrokerResponseError', async () => {
    const t = transport({
      a: (cmd) => Promise.resolve({ ...ok(cmd, 13), remark: 'illegal' }),
      b: (cmd) => Promise.resolve({ ...ok(cmd, 13) }),
    });
    await assert.rejects(runSend(msg(), false, t, new NoFaultStrategy(), settings()), (err: unknown) => {
      assert.ok(err instanceof BrokerResponseError);
      assert.equal(err.responseCode, 13);
      return true;
    });
    assert.equal(t.calls.length, 1);
  });

  it('exhaustion rejects with SendFailedError listing every attempt', async () => {
    const t = transport({ a: refuse, b: busy });
    await assert.rejects(runSend(msg(), false, t, new NoFaultStrategy(), settings()), (err: unknown) => {
      assert.ok(err instanceof SendFailedError);
      assert.equal(err.attempts.length, 3);
      for (const a of err.attempts) assert.ok(a.brokerName === 'a' || a.brokerName === 'b');
      assert.notEqual(
        err.attempts[0]?.brokerName,
        err.attempts[1]?.brokerName,
        'never the same broker twice in a row',
      );
      return true;
    });
  });

  it('a hung broker gets only the per-attempt cap, so the retry still succeeds in time', async () => {
    const clock = manualClock();
    const t = transport({ a: clock.hang, b: succeed });
    let hitHung = 0;
    for (let i = 0; i < 4; i++) {
      const from = clock.now;
      t.calls.length = 0;
      clock.timeouts.length = 0;
      const r = await runSend(
        msg(),
        false,
        t,
        new NoFaultStrategy(),
        settings({ sendMsgTimeout: 600, sendAttemptTimeout: 100, clock: clock.read }),
      );
      assert.equal(r?.messageQueue.brokerName, 'b');
      if (t.calls[0] === 'a') {
        hitHung++;
        assert.deepEqual(clock.timeouts, [100], 'the hung attempt was capped at sendAttemptTimeout');
        assert.equal(clock.now - from, 100);
      } else assert.equal(clock.now - from, 0);
    }
    assert.ok(hitHung > 0, 'round robin started some sends on the hung broker');
  });

  it('everything hung: attempts of the cap, then the remaining budget, then SendFailedError', async () => {
    const { err, timeouts, calls } = await sendToHungBrokers({
      sendMsgTimeout: 250,
      sendAttemptTimeout: 100,
    });
    assert.deepEqual(timeouts, [100, 100, 50], 'two capped attempts, the last gets what is left');
    assert.equal(err.attempts.length, 3);
    assert.equal(calls, 3);
    for (const a of err.attempts) assert.ok(a.error instanceof TimeoutError, String(a.error));
    assert.equal(err.elapsedMs, 250);
  });

  it('the budget runs out between attempts: no attempt starts after sendMsgTimeout', async () => {
    const { err, timeouts } = await sendToHungBrokers({
      sendMsgTimeout: 200,
      sendAttemptTimeout: 100,
      retryTimesWhenSendFailed: 5,
    });
    assert.deepEqual(timeouts, [100, 100]);
    assert.match(err.message, /sendMsgTimeout 200 ms exhausted/);
  });

  it('a stored status whose response cannot be read is not retried (no duplicate)', async () => {
    for (const code of [0, 10, 12, 11]) {
      const unreadable: Behaviour = () =>
        Promise.resolve({ code, language: 'JAVA', version: 407, opaque: 0, flag: 1, serializeType: 0 });
      const t = transport({ a: unreadable, b: unreadable });
      await assert.rejects(runSend(msg(), false, t, new NoFaultStrategy(), settings()), (err: unknown) => {
        assert.ok(err instanceof SendResultUnknownError, String(err));
        assert.equal(err.responseCode, code);
        assert.ok(err.cause instanceof ProtocolError);
        return true;
      });
      assert.equal(t.calls.length, 1, `code ${code}: sent once`);
    }
  });

  it('send-loop decides retries by the retriable flag: a ProtocolError (retriable false) is not retried', async () => {
    const malformed: Behaviour = () => Promise.reject(new ProtocolError('frame length out of range'));
    for (let i = 0; i < 6; i++) {
      const t = transport({ a: malformed, b: malformed });
      await assert.rejects(
        runSend(msg(), false, t, new NoFaultStrategy(), settings()),
        (err: unknown) => err instanceof ProtocolError && !err.retriable,
      );
      assert.equal(t.calls.length, 1, 'one attempt only');
    }
    // The same class flagged retriable does retry.
    const flagged: Behaviour = () => Promise.reject(new ProtocolError('reset', { retriable: true }));
    for (let i = 0; i < 6; i++) {
      const t = transport({ a: flagged, b: succeed });
      const r = await runSend(msg(), false, t, new NoFaultStrategy(), settings());
      assert.equal(r?.messageQueue.brokerName, 'b');
      assert.ok(t.calls.length <= 2);
    }
  });

  it('a send running when the producer shuts down rejects with SendFailedError listing its attempts and leaves no state in the strategy', async () => {
    const host = fakeHost();
    const strategy = new AdaptiveFaultStrategy(host);
    let shutDown = false;
    const closing: Behaviour = () => {
      // The pool closes under the in-flight request; from then on the producer has no instance.
      shutDown = true;
      return Promise.reject(new ConnectionClosedError('a'));
    };
    const t = transport({ a: closing, b: closing });
    const brokerAddress = t.brokerAddress;
    t.brokerAddress = (name) => {
      if (shutDown) throw new IllegalStateError('producer is not running');
      return brokerAddress(name);
    };
    await assert.rejects(runSend(msg(), false, t, strategy, settings()), (err: unknown) => {
      assert.ok(err instanceof SendFailedError, String(err));
      assert.equal(err.attempts.length, 2);
      assert.ok(err.attempts[0]?.error instanceof ConnectionClosedError);
      assert.ok(err.attempts[1]?.error instanceof IllegalStateError);
      assert.ok(err.cause instanceof IllegalStateError);
      return true;
    });
    assert.equal(t.calls.length, 1);
    const other = t.calls[0] === 'a' ? 'b' : 'a';
    assert.equal(strategy.latencyOf(other), undefined, 'no attempt of the aborted send is left in flight');
  });

  it('a producer shut down before the route lookup rejects with SendFailedError (stage route)', async () => {
    const t = transport({ a: succeed });
    t.publishInfo = () => {
      throw new IllegalStateError('producer is not running');
    };
    await assert.rejects(runSend(msg(), false, t, new NoFaultStrategy(), settings()), (err: unknown) => {
      assert.ok(err instanceof SendFailedError, String(err));
      assert.equal(err.attempts[0]?.stage, 'route');
      return true;
    });
  });

  it('when the strategy picks the last broker again, the retry avoids isolated brokers (3 brokers)', async () => {
    // A strategy that always answers broker a (as java-4.9 may) and reports b as isolated.
    const stubborn: LatencyFaultStrategy = {
      name: 'stubborn',
      select: (tp) => tp.queues.find((q) => q.brokerName === 'a') ?? tp.selectOne(),
      isAvailable: (brokerName) => brokerName !== 'b',
      onSuccess: () => undefined,
      onFailure: () => undefined,
      health: () => [],
      start: () => undefined,
      stop: () => undefined,
    };
    for (let i = 0; i < 8; i++) {
      const t = transport({ a: busy, b: succeed, c: succeed });
      const r = await runSend(msg(), false, t, stubborn, settings());
      assert.equal(r?.messageQueue.brokerName, 'c', 'never the isolated b');
      assert.deepEqual(t.calls, ['a', 'c']);
    }
    // Every other broker isolated: any broker but the last still beats the last.
    const allIsolated: LatencyFaultStrategy = { ...stubborn, isAvailable: (b) => b === 'a' };
    const t = transport({ a: busy, b: succeed, c: succeed });
    const r = await runSend(msg(), false, t, allIsolated, settings());
    assert.notEqual(r?.messageQueue.brokerName, 'a');
  });

  it('retryAnotherBrokerWhenNotStoreOK retries a non-OK status and returns the last one if nothing is OK', async () => {
    const flush: Behaviour = (cmd) => Promise.resolve(ok(cmd, 10));
    const t = transport({ a: flush, b: succeed });
    const r = await runSend(
      msg(),
      false,
      t,
      new NoFaultStrategy(),
      settings({ retryAnotherBrokerWhenNotStoreOK: true }),
    );
    assert.equal(r?.status, 'SEND_OK');
    const t2 = transport({ a: flush, b: flush });
    const r2 = await runSend(
      msg(),
      false,
      t2,
      new NoFaultStrategy(),
      settings({ retryAnotherBrokerWhenNotStoreOK: true }),
    );
    assert.equal(r2?.status, 'FLUSH_DISK_TIMEOUT');
    assert.equal(t2.calls.length, 3);
    const t3 = transport({ a: flush, b: flush });
    const r3 = await runSend(msg(), false, t3, new NoFaultStrategy(), settings());
    assert.equal(r3?.status, 'FLUSH_DISK_TIMEOUT');
    assert.equal(t3.calls.length, 1, 'off: the first stored result is returned');
  });

  it('fills the SendResult from the response', async () => {
    const p = msg();
    const r = await runSend(p, false, transport({ a: succeed }), new NoFaultStrategy(), settings());
    assert.equal(r?.msgId, p.msgId);
    assert.equal(r?.offsetMsgId, 'OFF');
    assert.equal(r?.queueOffset, 7);
    assert.equal(r?.regionId, 'R');
    assert.equal(r?.traceOn, true);
    assert.equal(r?.messageQueue.topic, 'T');
  });

  it('oneway makes exactly one attempt', async () => {
    const t = transport({ a: succeed, b: succeed });
    assert.equal(await runSend(msg(), true, t, new NoFaultStrategy(), settings()), undefined);
    assert.equal(t.calls.length, 1);
  });
});
