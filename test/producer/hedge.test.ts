/** Hedged sends in the send loop: fake transport, real timers with a small hedge floor. */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { TimeoutError, SendFailedError } from '../../src/errors.js';
import type { RemotingCommand } from '../../src/protocol/command.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { AdaptiveFaultStrategy } from '../../src/producer/fault/adaptive.js';
import { p99Of, SendHedger, WARM_SAMPLES, type HedgedDuplicateEvent } from '../../src/producer/hedge.js';
import { prepareMessage, type PreparedMessage } from '../../src/producer/message.js';
import { runSend, type SendTransport } from '../../src/producer/send-loop.js';
import { TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { fakeHost, routeOf, sendLoopSettings, sendResponse } from './helpers.js';

/** A pending request the test settles by hand. */
interface Pending {
  broker: string;
  cmd: RemotingCommand;
  timeoutMs: number;
  resolve: () => void;
  fail: () => void;
}

function handTransport(): SendTransport & { pending: Pending[] } {
  const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }));
  const pending: Pending[] = [];
  return {
    pending,
    publishInfo: () => tp,
    brokerAddress: (name) => name,
    request: (address, cmd, timeoutMs) =>
      new Promise<RemotingCommand>((resolve, reject) => {
        pending.push({
          broker: address,
          cmd,
          timeoutMs,
          resolve: () => resolve(sendResponse(cmd)),
          fail: () => reject(new TimeoutError(address, cmd.code, timeoutMs)),
        });
      }),
    oneway: (address, cmd, timeoutMs) => {
      pending.push({ broker: address, cmd, timeoutMs, resolve: () => {}, fail: () => {} });
      return Promise.resolve();
    },
  };
}

function setup() {
  const host = fakeHost();
  host.now = Date.now;
  const strategy = new AdaptiveFaultStrategy(host);
  const duplicates: HedgedDuplicateEvent[] = [];
  const hedger = new SendHedger(
    { multiplier: 10, floorMs: 15 },
    (b, ms) => strategy.onOverdue(b, ms),
    (e) => duplicates.push(e),
  );
  // A warm producer: some broker has answered enough sends for lateness to be judged (1 ms each,
  // so the delay is the 15 ms floor).
  for (let i = 0; i < WARM_SAMPLES; i++) hedger.record('warmed-broker', 1);
  const settings = sendLoopSettings({ hedger });
  return { host, strategy, duplicates, hedger, settings, t: handTransport() };
}

const ids = new UniqIdGenerator();
const msg = (over: Partial<PreparedMessage> = {}): PreparedMessage => ({
  ...prepareMessage(
    { topic: 'T', body: 'x' },
    { maxMessageSize: 1e6, compressMsgBodyOverHowmuch: 4096, compressLevel: 5, namespace: undefined },
    ids,
  ),
  ...over,
});

async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((r) => setTimeout(r, 2));
}

const uniqKeyOf = (cmd: RemotingCommand): string | undefined =>
  decodeProperties(cmd.extFields?.['i'] ?? '')['UNIQ_KEY'];

describe('hedged sends', () => {
  it('an overdue attempt isolates its broker and the same message goes to the other broker; the hedge wins', async () => {
    const { host, settings, strategy, t, hedger } = setup();
    const p = msg();
    const send = runSend(p, false, t, strategy, settings);
    await until(() => t.pending.length === 2);
    const [first, second] = t.pending as [Pending, Pending];
    assert.notEqual(first.broker, second.broker, 'the hedge went to the other broker');
    assert.equal(uniqKeyOf(first.cmd), p.msgId);
    assert.equal(uniqKeyOf(second.cmd), p.msgId, 'same UNIQ_KEY so consumers can dedupe');
    assert.deepEqual(
      host.isolated.map((e) => e.brokerName),
      [first.broker],
      'the overdue broker is isolated before its attempt times out',
    );
    second.resolve();
    const r = await send;
    assert.equal(r?.messageQueue.brokerName, second.broker);
    assert.equal(hedger.stats(first.broker).hedged, 1);
    first.fail();
  });

  it('a late success of the original is counted and reported as a duplicate', async () => {
    const { settings, strategy, t, duplicates, hedger } = setup();
    const p = msg();
    const send = runSend(p, false, t, strategy, settings);
    await until(() => t.pending.length === 2);
    const [first, second] = t.pending as [Pending, Pending];
    second.resolve();
    await send;
    first.resolve();
    await until(() => duplicates.length === 1);
    assert.deepEqual(duplicates[0], {
      topic: 'T',
      msgId: p.msgId,
      brokerName: first.broker,
      winnerBrokerName: second.broker,
    });
    assert.equal(hedger.stats(first.broker).hedgedDuplicates, 1);
    assert.equal(hedger.stats(second.broker).hedgedDuplicates, 0);
  });

  it('the original answering first wins and a late hedge success is the duplicate', async () => {
    const { settings, strategy, t, duplicates } = setup();
    const send = runSend(msg(), false, t, strategy, settings);
    await until(() => t.pending.length === 2);
    const [first, second] = t.pending as [Pending, Pending];
    first.resolve();
    const r = await send;
    assert.equal(r?.messageQueue.brokerName, first.broker);
    second.resolve();
    await until(() => duplicates.length === 1);
    assert.equal(duplicates[0]?.brokerName, second.broker);
  });

  it('a send pinned to a queue (queue, shardingKey, selector) is never hedged', async () => {
    const { settings, strategy, t, host } = setup();
    const send = runSend(msg(), false, t, strategy, settings, (tp) => tp.queues[0]!);
    await until(() => t.pending.length === 1);
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(t.pending.length, 1, 'no second request');
    assert.equal(host.isolated.length, 0);
    t.pending[0]?.resolve();
    await send;
  });

  it('both copies failing: the hedge used one of the attempts and the send fails with all of them listed', async () => {
    const { settings, strategy, t } = setup();
    const send = runSend(msg(), false, t, strategy, { ...settings, retryTimesWhenSendFailed: 1 });
    await until(() => t.pending.length === 2);
    for (const q of t.pending) q.fail();
    await assert.rejects(send, (err: unknown) => {
      assert.ok(err instanceof SendFailedError, String(err));
      assert.equal(err.attempts.length, 2, 'primary + hedge = the two attempts allowed');
      return true;
    });
    assert.equal(t.pending.length, 2, 'no third request');
  });

  it('of two sends in flight only the overdue one is hedged: one timer serves both', async () => {
    const { settings, strategy, t, hedger } = setup();
    const quick = runSend(msg(), false, t, strategy, settings);
    const slow = runSend(msg(), false, t, strategy, settings);
    await until(() => t.pending.length === 2);
    const [first, second] = t.pending as [Pending, Pending];
    first.resolve();
    await quick;
    await until(() => t.pending.length === 3);
    const hedge = t.pending[2] as Pending;
    assert.notEqual(hedge.broker, second.broker, 'the overdue send went to the other broker');
    assert.equal(uniqKeyOf(hedge.cmd), uniqKeyOf(second.cmd));
    hedge.resolve();
    assert.equal((await slow)?.messageQueue.brokerName, hedge.broker);
    assert.equal(hedger.stats(second.broker).hedged, 1);
    assert.equal(hedger.stats(first.broker).hedged, first.broker === second.broker ? 1 : 0);
    second.fail();
  });
});

describe('hedge delay', () => {
  const hedger = (): SendHedger =>
    new SendHedger(
      { multiplier: 10, floorMs: 15 },
      () => undefined,
      () => undefined,
    );

  it('a cold producer never hedges: no broker has answered enough sends to judge lateness by', () => {
    const h = hedger();
    assert.equal(h.delayFor('broker-a'), Infinity);
    for (let i = 0; i < WARM_SAMPLES - 1; i++) h.record('broker-a', 2);
    assert.equal(h.delayFor('broker-a'), Infinity, `${WARM_SAMPLES - 1} answers are not enough`);
    h.record('broker-a', 2);
    assert.equal(h.delayFor('broker-a'), 20, '10 × p99 of 2 ms');
  });

  it('a broker that has not answered yet borrows the slowest warm broker’s p99, never below the floor', () => {
    const h = hedger();
    for (let i = 0; i < WARM_SAMPLES; i++) h.record('broker-a', 1);
    for (let i = 0; i < WARM_SAMPLES; i++) h.record('broker-b', 4);
    assert.equal(h.delayFor('broker-c'), 40);
    assert.equal(h.delayFor('broker-a'), 15, 'the floor');
  });

  it('a race on a cold producer is the primary attempt alone: its answer wins, its failure is the error', async () => {
    const h = hedger();
    let hedges = 0;
    const start = () => {
      hedges++;
      return undefined;
    };
    const won = await h.race('broker-a', Promise.resolve('ok'), start, { userTopic: 'T', msgId: 'm' });
    assert.deepEqual(won, { value: 'ok', hedgeWon: false });
    await assert.rejects(
      h.race('broker-a', Promise.reject(new Error('refused')), start, { userTopic: 'T', msgId: 'm' }),
      /refused/,
    );
    assert.equal(hedges, 0);
  });
});

describe('hedge delay p99', () => {
  it('is the sorted sample at floor(n × 0.99), for every window size up to 256', () => {
    let s = 99;
    const next = (): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s % 500;
    };
    for (let n = 1; n <= 256; n++) {
      const samples = Array.from({ length: n }, next);
      const sorted = [...samples].sort((a, b) => a - b);
      assert.equal(p99Of(samples), sorted[Math.floor(n * 0.99)], `window of ${n}`);
    }
    assert.equal(p99Of([]), undefined);
  });
});
