import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { BrokerResponseError, ConnectError, ProtocolError, TimeoutError } from '../../src/errors.js';
import { DEFAULT_COMMAND_DEFAULTS, type RemotingCommand } from '../../src/protocol/command.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { silentLogger } from '../../src/observability/logger.js';
import { SendFailedError, SendResultUnknownError } from '../../src/producer/errors.js';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import {
  NoFaultStrategy,
  type LatencyFaultStrategy,
} from '../../src/producer/fault/latency-fault-tolerance.js';
import { Java49FaultStrategy } from '../../src/producer/fault/java-4.9.js';
import { prepareMessage } from '../../src/producer/message.js';
import { runSend, type SendLoopSettings, type SendTransport } from '../../src/producer/send-loop.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { fakeHost, routeOf } from './helpers.js';

type Behaviour = (cmd: RemotingCommand, timeoutMs: number) => Promise<RemotingCommand>;

function ok(cmd: RemotingCommand, code = 0): RemotingCommand {
  return {
    code,
    language: 'JAVA',
    version: 407,
    opaque: 0,
    flag: 1,
    serializeType: 0,
    extFields: {
      msgId: 'OFF',
      queueId: cmd.extFields?.['e'] ?? '0',
      queueOffset: '7',
      MSG_REGION: 'R',
      TRACE_ON: 'true',
    },
  };
}

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

const settings = (over: Partial<SendLoopSettings> = {}): SendLoopSettings => ({
  producerGroup: 'PG',
  createTopicKey: 'TBW102',
  defaultTopicQueueNums: 4,
  commandDefaults: DEFAULT_COMMAND_DEFAULTS,
  sendMsgTimeout: 3000,
  retryTimesWhenSendFailed: 2,
  retryAnotherBrokerWhenNotStoreOK: false,
  retryResponseCodes: new Set([1, 2, 14, 16, 17]),
  sendAttemptTimeout: 1000,
  logger: silentLogger,
  ...over,
});

const ids = new UniqIdGenerator();
const msg = () =>
  prepareMessage(
    { topic: 'T', body: 'x' },
    { maxMessageSize: 1e6, compressMsgBodyOverHowmuch: 4096, compressLevel: 5, namespace: undefined },
    ids,
  );
const succeed: Behaviour = (cmd) => Promise.resolve(ok(cmd));
const busy: Behaviour = (cmd) => Promise.resolve({ ...ok(cmd, 2), remark: 'busy' });
const refuse: Behaviour = () => Promise.reject(new ConnectError('x', 'refused'));
const hang: Behaviour = (cmd, t) =>
  new Promise((_, reject) => setTimeout(() => reject(new TimeoutError('h', cmd.code, t)), t));

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
    const t = transport({ a: hang, b: succeed });
    const started = Date.now();
    for (let i = 0; i < 4; i++) {
      const r = await runSend(
        msg(),
        false,
        t,
        new NoFaultStrategy(),
        settings({ sendMsgTimeout: 600, sendAttemptTimeout: 100 }),
      );
      assert.equal(r?.messageQueue.brokerName, 'b');
    }
    assert.ok(Date.now() - started < 4 * 600);
  });

  it('everything hung: rejects within sendMsgTimeout plus slack', async () => {
    const t = transport({ a: hang, b: hang });
    const started = Date.now();
    await assert.rejects(
      runSend(
        msg(),
        false,
        t,
        new NoFaultStrategy(),
        settings({ sendMsgTimeout: 300, sendAttemptTimeout: 100 }),
      ),
      (err: unknown) => {
        assert.ok(err instanceof SendFailedError, String(err));
        // Attempts of 100, 100 and the remaining ~100 ms (2 if timers fire late on a busy machine).
        assert.ok(err.attempts.length >= 2 && err.attempts.length <= 3, `${err.attempts.length} attempts`);
        assert.equal(t.calls.length, err.attempts.length);
        for (const a of err.attempts) assert.ok(a.error instanceof TimeoutError, String(a.error));
        return true;
      },
    );
    // Settling is the requirement; the slack absorbs a loaded machine.
    const elapsed = Date.now() - started;
    assert.ok(elapsed < 300 + 1500, `settled after ${elapsed} ms`);
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

  it('a ProtocolError from the connection (malformed frame) still retries on another broker', async () => {
    const malformed: Behaviour = () => Promise.reject(new ProtocolError('frame length out of range'));
    for (let i = 0; i < 6; i++) {
      const t = transport({ a: malformed, b: succeed });
      const r = await runSend(msg(), false, t, new NoFaultStrategy(), settings());
      assert.equal(r?.messageQueue.brokerName, 'b');
      assert.ok(t.calls.length <= 2);
    }
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
