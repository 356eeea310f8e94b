import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { silentLogger } from '../../src/observability/logger.js';
import type { Message } from '../../src/producer/message.js';
import { TraceDispatcher, type TraceSender } from '../../src/producer/trace/dispatcher.js';
import type { PubTrace } from '../../src/protocol/trace/trace-data.js';
import { parseJavaTrace } from '../protocol/trace/java-trace-parser.js';

/** A sender whose sends wait until the test settles them. */
function handSender(): TraceSender & {
  sent: Message[];
  settle: (ok: boolean) => void;
  shutdowns: number;
  auto: boolean;
} {
  const waiting: Array<(ok: boolean) => void> = [];
  const s = {
    sent: [] as Message[],
    shutdowns: 0,
    /** Resolve every later send at once. */
    auto: false,
    start: () => Promise.resolve(),
    shutdown: () => {
      s.shutdowns++;
      return Promise.resolve();
    },
    send: (m: Message) => {
      s.sent.push(m);
      if (s.auto) return Promise.resolve();
      return new Promise<unknown>((resolve, reject) =>
        waiting.push((ok) => (ok ? resolve(undefined) : reject(new Error('trace send failed')))),
      );
    },
    settle: (ok: boolean) => {
      for (const w of waiting.splice(0)) w(ok);
    },
  };
  return s;
}

const pub = (i: number, keys?: string): PubTrace => ({
  type: 'Pub',
  timeStamp: 1,
  regionId: 'R',
  groupName: 'PG',
  topic: 'T',
  msgId: `ID${i}`,
  tags: undefined,
  keys,
  storeHost: '127.0.0.1:1',
  bodyLength: 1,
  costTime: 1,
  msgType: 0,
  offsetMsgId: 'O',
  success: true,
});

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('trace dispatcher', () => {
  it('records queued within the flush interval go as one trace message keyed by msgIds and user keys', async () => {
    const sender = handSender();
    const d = new TraceDispatcher(sender, { traceTopic: 'TRACE', logger: silentLogger, flushIntervalMs: 10 });
    await d.start();
    d.append(pub(1, 'k1'));
    d.append(pub(2));
    await tick(40);
    assert.equal(sender.sent.length, 1);
    const m = sender.sent[0] as Message;
    assert.equal(m.topic, 'TRACE');
    assert.equal(m.keys, 'ID1 k1 ID2');
    assert.deepEqual(
      parseJavaTrace(String(m.body)).map((r) => r.named['msgId']),
      ['ID1', 'ID2'],
    );
    sender.settle(true);
    await d.shutdown();
    assert.deepEqual(d.stats(), { queued: 2, dropped: 0, sent: 1, failed: 0 });
    assert.equal(sender.shutdowns, 1);
  });

  it('a batch is cut at maxBatchChars and in-flight trace sends are limited', async () => {
    const sender = handSender();
    const one = 120; // a Pub record is about this long
    const d = new TraceDispatcher(sender, {
      traceTopic: 'TRACE',
      logger: silentLogger,
      maxBatchChars: one * 3,
      maxInFlight: 2,
      flushIntervalMs: 10_000,
    });
    await d.start();
    for (let i = 0; i < 20; i++) d.append(pub(i));
    assert.equal(sender.sent.length, 2, 'two batches in flight, the rest waits');
    for (const m of sender.sent) assert.ok(String(m.body).length <= one * 3);
    sender.auto = true;
    sender.settle(true);
    await d.shutdown();
    const records = sender.sent.flatMap((m) => parseJavaTrace(String(m.body)));
    assert.equal(records.length, 20, 'every record sent once');
  });

  it('a full queue drops and counts; a failed trace send is counted; neither throws', async () => {
    const sender = handSender();
    const d = new TraceDispatcher(sender, {
      traceTopic: 'TRACE',
      logger: silentLogger,
      queueSize: 3,
      maxInFlight: 1,
      flushIntervalMs: 5,
    });
    await d.start();
    assert.equal(d.append(pub(1)), true);
    await tick(20); // ID1 in flight
    for (let i = 2; i <= 6; i++) d.append(pub(i));
    assert.equal(d.stats().dropped, 2, 'queue of 3: two of five dropped');
    sender.settle(false);
    await tick(20);
    sender.settle(true);
    await d.shutdown();
    assert.deepEqual(d.stats(), { queued: 4, dropped: 2, sent: 1, failed: 1 });
  });

  it('appending after shutdown drops', async () => {
    const d = new TraceDispatcher(handSender(), { traceTopic: 'TRACE', logger: silentLogger });
    await d.start();
    await d.shutdown();
    assert.equal(d.append(pub(1)), false);
    assert.equal(d.stats().dropped, 1);
  });
});
