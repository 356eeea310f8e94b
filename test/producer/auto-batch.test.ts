/** autoBatch: SEND_BATCH_MESSAGE for concurrent sends, each caller with its own result. */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { InvalidArgumentError } from '../../src/errors.js';
import { AbortError } from '../../src/errors/abort.js';
import { SendPermits } from '../../src/producer/backpressure.js';
import {
  PIPELINE_DEPTH,
  ProduceAccumulator,
  splitBatchResult,
  splitOffsetIds,
} from '../../src/producer/auto-batch.js';
import { decodeBatch } from '../../src/protocol/message/batch.js';
import { appendProperty, decodeProperties, PropertyKey } from '../../src/protocol/message/properties.js';
import type { SendResult } from '../../src/producer/send-result.js';
import type { ProducerOptions } from '../../src/producer/options.js';
import { Producer, type SendTraceContext } from '../../src/producer/producer.js';
import type { PreparedMessage } from '../../src/producer/message.js';
import type { EmbeddedCluster } from '../../src/server/cluster.js';
import { oneBrokerCluster, readTopic, uniqueTopic, watchRequests } from './cluster-helpers.js';

/** Request codes the producer sends from now on. */
/** Each caller's send budget (ms) in the accumulator tests; they never reach it. */
const BUDGET = 3000;

function recordCodes(p: Producer): { readonly codes: number[] } {
  const seen = watchRequests(p);
  return {
    get codes() {
      return seen.map((e) => e.request.code);
    },
  };
}

describe('autoBatch on the embedded cluster', () => {
  const suite = oneBrokerCluster('PGB');
  const startProducer = suite.startProducer;
  let cluster: EmbeddedCluster;
  before(() => {
    cluster = suite.cluster();
  });
  /** A new topic of `queues` queues and an autoBatch producer whose route to it is known. */
  async function warmProducer(
    name: string,
    options: Partial<ProducerOptions>,
    queues = 1,
  ): Promise<{ topic: string; p: Producer }> {
    const topic = uniqueTopic(name);
    await cluster.createTopic(topic, queues);
    const p = await startProducer({ autoBatch: true, ...options });
    await p.send({ topic, body: 'warm the route' });
    return { topic, p };
  }

  it('concurrent sends go out as batches; each caller gets its own msgId, offsetMsgId and queueOffset', async () => {
    const { topic, p } = await warmProducer('AutoBatch', { batchMaxDelayMs: 20 }, 2);
    const rec = recordCodes(p);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        p.send({ topic, body: `m${i}`, tags: i % 2 ? 'odd' : 'even', keys: `k${i}` }),
      ),
    );
    const codes = rec.codes;
    const batches = codes.filter((c) => c === 320).length;
    assert.ok(batches >= 1 && codes.length < 60, `${codes.length} requests, ${batches} batches`);
    assert.equal(new Set(results.map((r) => r.msgId)).size, 60);
    assert.equal(new Set(results.map((r) => r.offsetMsgId)).size, 60);
    assert.ok(results.every((r) => !r.msgId.includes(',') && !r.offsetMsgId.includes(',')));
    // What the broker stored at each (queue, offset) is the message its caller was told about.
    const stored = await readTopic(cluster, topic, 2);
    const at = new Map<string, { uniq: string; tags: string | undefined }>();
    const perQueue = new Map<number, number>();
    for (const m of stored) {
      const offset = perQueue.get(m.queueId) ?? 0;
      perQueue.set(m.queueId, offset + 1);
      at.set(`${m.queueId}:${offset}`, { uniq: m.properties['UNIQ_KEY'] ?? '', tags: m.properties['TAGS'] });
    }
    results.forEach((r, i) => {
      const s = at.get(`${r.messageQueue.queueId}:${r.queueOffset}`);
      assert.equal(s?.uniq, r.msgId, `message ${i}`);
      assert.equal(s?.tags, i % 2 ? 'odd' : 'even');
      assert.equal(r.messageQueue.topic, topic);
    });
  });

  it('timer, delayed and compressed messages are not batched', async () => {
    const { topic, p } = await warmProducer('AutoBatchSkip', { batchMaxDelayMs: 50 });
    const rec = recordCodes(p);
    await Promise.all([
      p.send({ topic, body: 'later', deliverAfterMs: 10 }),
      p.send({ topic, body: 'delayed', delayTimeLevel: 1 }),
      p.send({ topic, body: Buffer.from('z'.repeat(8000)) }),
    ]);
    assert.deepEqual(
      rec.codes.filter((c) => c === 310 || c === 320),
      [310, 310, 310],
    );
  });

  it('a transaction half (PGROUP written after prepareMessage) is sent alone; WAIT=false messages batch apart', async () => {
    const { topic, p } = await warmProducer('AutoBatchLanes', { batchMaxDelayMs: 50 });
    const seen = watchRequests(p);
    const half = (body: string) =>
      p.sendWith({ topic, body }, (m) => ({
        ...m,
        properties: appendProperty(m.properties, PropertyKey.PGROUP, 'PG_half'),
      }));
    await Promise.all([
      half('h1'),
      half('h2'),
      p.send({ topic, body: 'w1' }),
      p.send({ topic, body: 'w2' }),
      p.send({ topic, body: 'n1', waitStoreMsgOK: false }),
      p.send({ topic, body: 'n2', waitStoreMsgOK: false }),
    ]);
    const alone = seen.filter((e) => e.request.code === 310).map((e) => e.request.body!.toString());
    assert.deepEqual(alone.sort(), ['h1', 'h2']);
    const batches = seen
      .filter((e) => e.request.code === 320)
      .map((e) =>
        decodeBatch(e.request.body!).map(
          (m) => `${Buffer.from(m.body).toString()}:${decodeProperties(m.properties)['WAIT']}`,
        ),
      );
    assert.deepEqual(batches.map((b) => b.sort()).sort(), [
      ['n1:false', 'n2:false'],
      ['w1:true', 'w2:true'],
    ]);
  });

  it('batched sends give back their permits and in-flight count: a second full round goes at once', async () => {
    const { topic, p } = await warmProducer('AutoBatchPermits', { backPressureForAsyncSendNum: 10 });
    const rec = recordCodes(p);
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => p.send({ topic, body: `r${round}m${i}` })),
      );
      assert.equal(results.length, 10);
    }
    assert.deepEqual(rec.codes, [320, 320], 'each round of ten went as one batch, none waited for room');
    const internals = p as unknown as { sends: { size: number }; permits: SendPermits };
    assert.equal(internals.sends.size, 0);
    assert.deepEqual(internals.permits.inFlight, { count: 0, bytes: 0 });
  });

  it('with a rocketmq:send tracing subscriber, each batched send is traced with its own result', async () => {
    const { topic, p } = await warmProducer('AutoBatchTraced', {});
    const ended: SendTraceContext[] = [];
    const onEnd = (ctx: unknown): void => void ended.push(ctx as SendTraceContext);
    subscribe('tracing:rocketmq:send:asyncEnd', onEnd);
    try {
      const rec = recordCodes(p);
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => p.send({ topic, body: `t${i}` })),
      );
      assert.deepEqual(rec.codes, [320]);
      assert.deepEqual(ended.map((c) => c.result?.msgId).sort(), results.map((r) => r.msgId).sort());
      assert.equal((p as unknown as { sends: { size: number } }).sends.size, 0);
    } finally {
      unsubscribe('tracing:rocketmq:send:asyncEnd', onEnd);
    }
  });

  it('batch options are validated with Java’s ranges', () => {
    const base = { namesrvAddr: '127.0.0.1:9876' };
    for (const [field, value] of [
      ['batchMaxDelayMs', 0],
      ['batchMaxBytes', 3 * 1024 * 1024],
      ['backPressureForAsyncSendNum', 9],
      ['backPressureForAsyncSendSize', 1000],
      ['autoBatch', 'yes'],
    ] as const) {
      assert.throws(
        () => new Producer({ ...base, [field]: value }),
        (e: unknown) => e instanceof InvalidArgumentError && e.field === field,
      );
    }
  });
});

describe('splitBatchResult', () => {
  it('gives message i offsetMsgId i and queueOffset first + i; an id list of another length is shared', () => {
    const batch = {
      status: 'SEND_OK' as const,
      msgId: 'A,B,C',
      offsetMsgId: 'X0,X1,X2',
      messageQueue: { topic: 'ns%T', brokerName: 'b', queueId: 3 },
      queueOffset: 40,
      regionId: 'DefaultRegion',
      traceOn: true,
    };
    const p = { msgId: 'B', userTopic: 'T' } as PreparedMessage;
    const r = splitBatchResult(batch, p, 1, batch.offsetMsgId.split(','), 3);
    assert.deepEqual(
      [r.msgId, r.offsetMsgId, r.queueOffset, r.messageQueue.topic, r.messageQueue.queueId],
      ['B', 'X1', 41, 'T', 3],
    );
    assert.equal(splitBatchResult({ ...batch, offsetMsgId: 'ONE' }, p, 1, ['ONE'], 3).offsetMsgId, 'ONE');
  });
});

/** A ProduceAccumulator whose sends wait until the test answers them; `released` lists msgIds given back. */
function accumulatorWithManualSends(
  settings: Partial<ConstructorParameters<typeof ProduceAccumulator>[0]> = {},
) {
  const sent: { p: PreparedMessage; timeoutMs: number; answer: () => void; fail: (e: Error) => void }[] = [];
  const released: string[] = [];
  const acc = new ProduceAccumulator(
    {
      batchMaxDelayMs: 10_000,
      batchMaxBytes: 32 * 1024,
      totalBatchMaxBytes: 1 << 25,
      maxMessageSize: 1 << 22,
      ...settings,
    },
    (p, timeoutMs) =>
      new Promise<SendResult>((resolve, reject) => {
        const answer = (): void =>
          resolve({
            status: 'SEND_OK',
            msgId: p.msgId,
            offsetMsgId: Array.from({ length: p.count }, (_, i) => `OFF${i}`).join(','),
            messageQueue: { topic: p.topic, brokerName: 'b', queueId: 1 },
            queueOffset: 100,
            regionId: 'DefaultRegion',
            traceOn: true,
          });
        sent.push({ p, timeoutMs, answer, fail: reject });
      }),
    (p) => released.push(p.msgId),
  );
  let n = 0;
  const message = (body = 'x'): PreparedMessage => {
    const msgId = `ID${n++}`;
    return {
      topic: 'T',
      userTopic: 'T',
      body: Buffer.from(body),
      sysFlag: 0,
      flag: 0,
      properties: `WAIT\u0001true\u0002UNIQ_KEY\u0001${msgId}`,
      msgId,
      batch: false,
      count: 1,
    };
  };
  return { acc, sent, message, released };
}

const endOfTurn = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('ProduceAccumulator: when a batch goes', () => {
  it('a batch is sent within what is left of its callers’ budgets: the shortest, less the time held', async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const results = [acc.add(message('a'), 5000), acc.add(message('b'), 400), acc.add(message('c'), 2000)];
    await endOfTurn();
    assert.equal(sent.length, 1);
    const timeoutMs = sent[0]!.timeoutMs;
    assert.ok(
      timeoutMs <= 400 && timeoutMs > 300,
      `the batch's budget ${timeoutMs} ms ends with the 400 ms caller's`,
    );
    sent[0]!.answer();
    await Promise.all(results);
  });

  it('with nothing in flight, the sends of one turn go together at the end of the turn, not after batchMaxDelayMs', async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const results = [
      acc.add(message('a'), BUDGET),
      acc.add(message('b'), BUDGET),
      acc.add(message('c'), BUDGET),
    ];
    assert.equal(sent.length, 0, 'held during the turn');
    await endOfTurn();
    assert.equal(sent.length, 1);
    const batch = sent[0]!.p;
    assert.equal(batch.count, 3);
    assert.equal(batch.msgId, 'ID0,ID1,ID2');
    assert.deepEqual(
      decodeBatch(batch.body).map((e) => Buffer.from(e.body).toString()),
      ['a', 'b', 'c'],
    );
    sent[0]!.answer();
    const rs = await Promise.all(results);
    assert.deepEqual(
      rs.map((r) => [r.msgId, r.offsetMsgId, r.queueOffset]),
      [
        ['ID0', 'OFF0', 100],
        ['ID1', 'OFF1', 101],
        ['ID2', 'OFF2', 102],
      ],
    );
    assert.equal(acc.held, 0);
  });

  it(`with ${PIPELINE_DEPTH} batches in flight the next one fills up until one is answered; a full one goes at once`, async () => {
    const { acc, sent, message } = accumulatorWithManualSends({ batchMaxBytes: 200 });
    const all: Promise<SendResult>[] = [];
    for (let b = 0; b < PIPELINE_DEPTH; b++) {
      all.push(acc.add(message(), BUDGET), acc.add(message(), BUDGET));
      await endOfTurn();
    }
    assert.equal(sent.length, PIPELINE_DEPTH);
    all.push(acc.add(message(), BUDGET), acc.add(message(), BUDGET));
    await endOfTurn();
    await endOfTurn();
    assert.equal(sent.length, PIPELINE_DEPTH, 'the next batch waits');
    assert.ok(acc.held > 0);
    // Over batchMaxBytes: goes now, whatever is in flight.
    all.push(acc.add(message('y'.repeat(150)), BUDGET));
    assert.equal(sent.length, PIPELINE_DEPTH + 1);
    assert.equal(sent.at(-1)!.p.count, 3);
    all.push(acc.add(message('after'), BUDGET));
    await endOfTurn();
    assert.equal(sent.length, PIPELINE_DEPTH + 1, 'still waiting');
    sent[0]!.answer();
    await endOfTurn();
    await endOfTurn();
    assert.equal(sent.length, PIPELINE_DEPTH + 2, 'an answer lets the open batch go');
    assert.equal(sent.at(-1)!.p.batch, false, 'a batch of one goes as a plain send');
    for (const s of sent.slice(1)) s.answer();
    assert.equal((await Promise.all(all)).length, 2 * PIPELINE_DEPTH + 4);
  });

  it(`once answers show the lane's callers, a batch goes at once with callers / ${PIPELINE_DEPTH} messages while another is in flight`, async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const all: Promise<SendResult>[] = [];
    const addTurn = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) all.push(acc.add(message(), BUDGET));
      await endOfTurn();
    };
    const callers = 4 * PIPELINE_DEPTH;
    const share = callers / PIPELINE_DEPTH;
    // No answer yet: nothing is known of the callers, a turn's sends go as one batch.
    await addTurn(callers / 2);
    await addTurn(callers / 2);
    assert.deepEqual(
      sent.map((s) => s.p.count),
      [callers / 2, callers / 2],
    );
    // The answer to the first shows `callers` outstanding: the share is callers / PIPELINE_DEPTH.
    sent[0]!.answer();
    await endOfTurn();
    for (let i = 0; i < callers / 2; i++) {
      all.push(acc.add(message(), BUDGET));
      if (i === share - 1) assert.equal(sent.length, 3, 'the share went before the end of the turn');
    }
    await endOfTurn();
    assert.deepEqual(
      sent.map((s) => s.p.count),
      [callers / 2, callers / 2, share, callers / 2 - share],
    );
    for (const s of sent.slice(1)) s.answer();
    assert.equal((await Promise.all(all)).length, (3 * callers) / 2);
    assert.equal(acc.held, 0);
  });

  it('a share learnt from few callers splits a sudden burst into at most PIPELINE_DEPTH batches on the wire; an answer lets the rest go', async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const all: Promise<SendResult>[] = [];
    // Two callers, one message each on the wire; the first answer teaches a share of 1.
    all.push(acc.add(message(), BUDGET));
    await endOfTurn();
    all.push(acc.add(message(), BUDGET));
    await endOfTurn();
    sent[0]!.answer();
    await endOfTurn();
    const burst = 30;
    for (let i = 0; i < burst; i++) all.push(acc.add(message(), BUDGET));
    await endOfTurn();
    assert.deepEqual(
      sent.map((s) => s.p.count),
      [1, 1, ...Array.from({ length: PIPELINE_DEPTH - 1 }, () => 1)],
      'singles only until PIPELINE_DEPTH are on the wire; the rest is held',
    );
    // An answer lets the held rest go (at the end of the turn its answer was read in).
    sent[1]!.answer();
    await endOfTurn();
    await endOfTurn();
    assert.equal(sent.at(-1)!.p.count, burst - (PIPELINE_DEPTH - 1));
    for (const s of sent.slice(2)) s.answer();
    assert.equal((await Promise.all(all)).length, burst + 2);
    assert.equal(acc.held, 0);
  });

  it('only whole property names keep a message out; WAIT=false messages batch apart', async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const withProps = (properties: string): PreparedMessage => ({ ...message(), properties });
    assert.equal(acc.canBatch(withProps('DELAY\u00013\u0002UNIQ_KEY\u0001A')), false);
    assert.equal(acc.canBatch(withProps('UNIQ_KEY\u0001A\u0002PGROUP\u0001g')), false);
    assert.equal(acc.canBatch(withProps('TIMER_DELIVER_MS\u00011')), false);
    assert.equal(acc.canBatch(withProps('NODELAY\u00013\u0002UNIQ_KEY\u0001A')), true);
    const noWait = [0, 1].map(() => acc.add(withProps('WAIT\u0001false\u0002UNIQ_KEY\u0001N'), BUDGET));
    const wait = [0, 1].map(() => acc.add(withProps('XWAIT\u0001false\u0002UNIQ_KEY\u0001W'), BUDGET));
    await endOfTurn();
    assert.deepEqual(
      sent.map((s) => [s.p.count, s.p.properties]),
      [
        [2, 'WAIT\u0001false'],
        [2, 'WAIT\u0001true'],
      ],
    );
    for (const s of sent) s.answer();
    await Promise.all([...noWait, ...wait]);
  });

  it('sends to several topics, in any order, batch by topic; a lane that went idle is made again', async () => {
    const { acc, sent, message } = accumulatorWithManualSends();
    const to = (topic: string, body: string): PreparedMessage => ({
      ...message(body),
      topic,
      userTopic: topic,
    });
    const first = ['A', 'B', 'B', 'A', 'C', 'A'].map((t, i) => acc.add(to(t, `${t}${i}`), BUDGET));
    await endOfTurn();
    assert.equal(sent.length, 3);
    assert.deepEqual(
      sent
        .slice(0, 2)
        .map((s) => [s.p.topic, decodeBatch(s.p.body).map((e) => Buffer.from(e.body).toString())]),
      [
        ['A', ['A0', 'A3', 'A5']],
        ['B', ['B1', 'B2']],
      ],
    );
    // C had one message: it went as a plain send.
    assert.deepEqual([sent[2]!.p.batch, Buffer.from(sent[2]!.p.body).toString()], [false, 'C4']);
    for (const s of sent) s.answer();
    const rs = await Promise.all(first);
    assert.deepEqual(
      rs.map((r) => [r.messageQueue.topic, r.queueOffset]),
      [
        ['A', 100],
        ['B', 100],
        ['B', 101],
        ['A', 101],
        ['C', 100],
        ['A', 102],
      ],
    );
    // Every lane is idle (and forgotten) now; A again, twice in a row, in a lane that shutdown's
    // flushAll knows.
    const again = [acc.add(to('A', 'A6'), BUDGET), acc.add(to('A', 'A7'), BUDGET)];
    acc.flushAll();
    assert.equal(sent.length, 4);
    assert.deepEqual(
      decodeBatch(sent[3]!.p.body).map((e) => Buffer.from(e.body).toString()),
      ['A6', 'A7'],
    );
    sent[3]!.answer();
    assert.deepEqual(
      (await Promise.all(again)).map((r) => r.queueOffset),
      [100, 101],
    );
    assert.equal(acc.held, 0);
  });

  it('a held batch goes after batchMaxDelayMs at the latest; a failed batch rejects every caller', async () => {
    const { acc, sent, message } = accumulatorWithManualSends({ batchMaxDelayMs: 30 });
    const busy = Array.from({ length: PIPELINE_DEPTH }, () => acc.add(message(), BUDGET));
    await endOfTurn();
    for (let i = 1; i < PIPELINE_DEPTH; i++) {
      busy.push(acc.add(message(), BUDGET));
      await endOfTurn();
    }
    const inFlight = sent.length;
    const held = [acc.add(message(), BUDGET), acc.add(message(), BUDGET)];
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(sent.length, inFlight + 1, 'sent by the timer');
    sent.at(-1)!.fail(new Error('broker gone'));
    for (const r of await Promise.allSettled(held)) {
      assert.equal(r.status, 'rejected');
      assert.equal((r.reason as Error).message, 'broker gone');
    }
    for (const s of sent.slice(0, inFlight)) s.answer();
    await Promise.all(busy);
  });
});

describe('splitOffsetIds', () => {
  it('gives what split(",") gives, for ids of one width and of mixed widths', () => {
    const v4 = (i: number): string => `7F00000100002A9F${i.toString(16).toUpperCase().padStart(16, '0')}`;
    const v6 = (i: number): string => `${'0'.repeat(30)}01${'00002A9F'}${i.toString(16).padStart(16, '0')}`;
    const cases: Array<[string, number]> = [
      [Array.from({ length: 85 }, (_, i) => v4(i)).join(','), 85],
      [Array.from({ length: 3 }, (_, i) => v6(i)).join(','), 3],
      [v4(7), 1],
      [[v4(1), v6(2)].join(','), 2],
      [[v4(1), v4(2)].join(','), 3],
      [[v4(1), v4(2), v4(3)].join(','), 2],
      ['', 1],
      ['A,B', 2],
    ];
    for (const [joined, count] of cases) assert.deepEqual(splitOffsetIds(joined, count), joined.split(','));
  });
});

describe('ProduceAccumulator: a caller that aborts', () => {
  it('held: its record leaves the batch, which goes without it; it is released once, at the abort', async () => {
    const { acc, sent, message, released } = accumulatorWithManualSends();
    const controller = new AbortController();
    const a = acc.add(message('a'), BUDGET);
    const b = acc.add(message('b'), BUDGET, undefined, controller.signal);
    const c = acc.add(message('c'), BUDGET);
    const held = acc.held;
    controller.abort();
    await assert.rejects(b, AbortError);
    assert.deepEqual(released, ['ID1']);
    assert.ok(acc.held < held);
    await endOfTurn();
    assert.equal(sent.length, 1);
    const batch = sent[0]!.p;
    assert.equal(batch.msgId, 'ID0,ID2');
    assert.deepEqual(
      decodeBatch(batch.body).map((e) => [
        Buffer.from(e.body).toString(),
        decodeProperties(e.properties)['UNIQ_KEY'],
      ]),
      [
        ['a', 'ID0'],
        ['c', 'ID2'],
      ],
    );
    sent[0]!.answer();
    const [ra, rc] = await Promise.all([a, c]);
    assert.deepEqual([ra.queueOffset, rc.queueOffset], [100, 101]);
    assert.deepEqual(released.sort(), ['ID0', 'ID1', 'ID2']);
    assert.equal(acc.held, 0);
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
  });

  it('after its batch went: answered at once, and the batch answer skips it (released once)', async () => {
    const { acc, sent, message, released } = accumulatorWithManualSends();
    const controller = new AbortController();
    const a = acc.add(message('a'), BUDGET, undefined, controller.signal);
    const b = acc.add(message('b'), BUDGET);
    await endOfTurn();
    assert.equal(sent.length, 1);
    controller.abort();
    await assert.rejects(a, AbortError);
    assert.deepEqual(released, ['ID0']);
    sent[0]!.answer();
    assert.equal((await b).queueOffset, 101);
    assert.deepEqual(released, ['ID0', 'ID1']);
  });

  it('the only message of a held batch: the batch is dropped, nothing is sent', async () => {
    const { acc, sent, message, released } = accumulatorWithManualSends();
    const controller = new AbortController();
    const only = acc.add(message('a'), BUDGET, undefined, controller.signal);
    controller.abort();
    await assert.rejects(only, AbortError);
    await endOfTurn();
    assert.equal(sent.length, 0);
    assert.deepEqual(released, ['ID0']);
    assert.equal(acc.held, 0);
    // The lane is usable again.
    const next = acc.add(message('b'), BUDGET);
    await endOfTurn();
    sent[0]!.answer();
    assert.equal((await next).msgId, 'ID1');
  });
});
