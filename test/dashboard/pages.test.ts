/**
 * The dashboard's operator pages over HTTP against an embedded cluster: a group's dead letters
 * (browse, resend to the original topic, export as JSON), a topic browsed by store time, a
 * message's trace page, and POP groups marked with their in-flight counts.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parse } from 'parse5';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { Dashboard } from '../../src/dashboard/server.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { Producer } from '../../src/producer/producer.js';
import { FAST, unique } from '../consumer/helpers.js';
import {
  csrfOf,
  dashboardFixture,
  makeDeadLetters,
  popGroupHolding,
  rowCells,
  until,
  type DashboardFixture,
} from './fixture.js';

let f: DashboardFixture;

async function get(
  path: string,
  init?: RequestInit,
): Promise<{ status: number; html: string; res: Response }> {
  const res = await fetch(`${f.base}${path}`, init);
  return { status: res.status, html: await res.text(), res };
}

async function post(
  path: string,
  form: Array<[string, string]>,
): Promise<{ status: number; html: string; res: Response }> {
  return get(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
}

function assertPage(html: string, what: string): void {
  const errors: string[] = [];
  parse(html, { onParseError: (e) => errors.push(e.code) });
  assert.deepEqual(errors, [], `${what}: HTML parse errors`);
  assert.equal(html.match(/<h1>/g)?.length, 1, `${what}: one h1`);
}

function inlineError(html: string): string {
  const m = /<div class="error" role="alert"><strong>Error:<\/strong> ([^<]*)<\/div>/.exec(html);
  assert.ok(m, 'an inline error');
  return m[1]!;
}

/** `2026-12-01T08:30:00` in UTC, as a datetime-local field sends it. */
function utcField(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

describe('dashboard operator pages on an embedded cluster', () => {
  before(async () => {
    // fault injection for the hung-broker test
    f = await dashboardFixture({}, { faultInjection: true });
  });
  after(async () => {
    await f?.close();
  });

  test('DLQ page: no dead letters yet, then each with its original topic; resend a selection, export all shown as JSON', async () => {
    const emptyGroup = unique('DlqNone');
    const empty = await get(`/group/dlq?name=${emptyGroup}`);
    assert.equal(empty.status, 200);
    assertPage(empty.html, 'empty DLQ');
    assert.match(empty.html, /id="dlq-empty">No dead letters\. %DLQ%\S+ does not exist/);

    const { topic, group, sent } = await makeDeadLetters(f, 3);
    const page = await get(`/group/dlq?name=${group}`);
    assert.equal(page.status, 200);
    assertPage(page.html, 'DLQ page');
    for (const [i, s] of sent.entries()) {
      const cells = rowCells(page.html, s.msgId);
      assert.ok(cells, `row of ${s.msgId}`);
      assert.equal(cells[2], topic, 'original topic (RETRY_TOPIC)');
      assert.equal(cells[4], '1', 'reconsume times (the send-back counts one more, as Java)');
      assert.equal(cells[5], `dead-${i}`);
      assert.match(cells[6]!, new RegExp(`\\{&quot;dead&quot;:${i}\\}|\\{"dead":${i}\\}`));
    }
    assert.match(page.html, /newest first/);
    const ids = [...page.html.matchAll(/name="id" value="([0-9A-F]+)"/g)].map((m) => m[1]!);
    assert.equal(ids.length, 3);
    const csrf = csrfOf(page.html);

    // resend two of them
    const resent = await post('/group/dlq/resend', [
      ['csrf', csrf],
      ['group', group],
      ['shown', ids.join(' ')],
      ['id', ids[0]!],
      ['id', ids[1]!],
    ]);
    assert.equal(resent.status, 200);
    assertPage(resent.html, 'after resend');
    assert.match(resent.html, /role="status">Resent 2 of 2 dead letters/);
    assert.equal((resent.html.match(/resent as <a /g) ?? []).length, 2);
    const first = (await f.admin.viewMessage(ids[0]!)).keys[0]!;
    await until(async () => (await f.admin.queryMessagesByKey(topic, first)).length === 2, 'the resent copy');
    const copies = await f.admin.queryMessagesByKey(topic, first);
    const [orig, copy] = copies;
    // as Java's mqadmin resends a stored message: its UNIQ_KEY (the original's msgId) kept
    assert.equal(copy!.msgId, orig!.msgId, 'the msgId (UNIQ_KEY) kept');
    assert.ok(
      sent.some((r) => r.msgId === copy!.msgId),
      'the msgId the producer first sent it with',
    );
    assert.notEqual(copy!.offsetMsgId, orig!.offsetMsgId, 'stored anew');
    assert.deepEqual(copy!.keys, orig!.keys);
    assert.equal(copy!.tags, 'TagD');
    assert.equal(copy!.properties['origin'], 'dlq-test', 'user properties kept');
    assert.deepEqual(copy!.body, orig!.body);
    assert.equal(copy!.properties['RETRY_TOPIC'], undefined, 'no broker property carried over');

    // a resend of an id that is no message: reported per message, the others still go
    const mixed = await post('/group/dlq/resend', [
      ['csrf', csrf],
      ['group', group],
      ['id', 'nope'],
      ['id', ids[2]!],
    ]);
    assert.equal(mixed.status, 200);
    assert.match(mixed.html, /Resent 1 of 2 dead letters[^<]*1 failed/);
    assert.match(rowCells(mixed.html, 'nope')!.join(' '), /failed: msgId/);

    // export: nothing checked means every message shown
    const exported = await post('/group/dlq/export', [
      ['csrf', csrf],
      ['group', group],
      ['shown', ids.join(' ')],
    ]);
    assert.equal(exported.status, 200);
    assert.match(exported.res.headers.get('content-type') ?? '', /^application\/json/);
    assert.match(
      exported.res.headers.get('content-disposition') ?? '',
      /^attachment; filename="dlq-.+\.json"$/,
    );
    const doc = JSON.parse(exported.html) as {
      group: string;
      messages: Array<{
        msgId: string;
        originalTopic: string;
        properties: Record<string, string>;
        body: { base64: string; utf8?: string };
      }>;
    };
    assert.equal(doc.group, group);
    assert.equal(doc.messages.length, 3);
    for (const m of doc.messages) {
      assert.equal(m.originalTopic, topic);
      assert.equal(m.properties['origin'], 'dlq-test');
      assert.equal(Buffer.from(m.body.base64, 'base64').toString('utf8'), m.body.utf8);
      assert.match(m.body.utf8!, /^\{"dead":\d\}$/);
    }

    // the dangerous actions follow the POST rules
    const noToken = await post('/group/dlq/resend', [
      ['group', group],
      ['id', ids[0]!],
    ]);
    assert.equal(noToken.status, 403);
    const nothing = await post('/group/dlq/resend', [
      ['csrf', csrf],
      ['group', group],
    ]);
    assert.equal(nothing.status, 400);
    assert.match(inlineError(nothing.html), /select at least one message/);
  });

  test('browse by time: the range in pages of 32 with a next-page link, each row linking to the message; bad ranges are inline errors', async () => {
    const topic = unique('TimeT');
    await f.admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
    const begin = Date.now() - 1000;
    const sent = new Set<string>();
    for (let i = 0; i < 40; i++) sent.add((await f.h.producer.send({ topic, body: `t${i}` })).msgId);
    const end = Date.now() + 1000;
    const q = `topic=${topic}&begin=${utcField(begin)}&end=${utcField(end)}`;
    const first = await get(`/messages/time?${q}`);
    assert.equal(first.status, 200);
    assertPage(first.html, 'browse page 1');
    const rows1 = [...first.html.matchAll(/<tr data-key="([0-9A-F]+)">/g)].map((m) => m[1]!);
    assert.equal(rows1.length, 32);
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.html);
    assert.ok(next, 'a next-page link');
    assert.match(first.html, /<a href="\/message\?id=[0-9A-F]+&amp;topic=/);
    const second = await get(next[1]!.replace(/&amp;/g, '&'));
    assert.equal(second.status, 200);
    const rows2 = [...second.html.matchAll(/<tr data-key="([0-9A-F]+)">/g)].map((m) => m[1]!);
    assert.equal(rows2.length, 8);
    assert.match(second.html, /id="range-end"/);
    assert.deepEqual(new Set([...rows1, ...rows2]), sent);

    // the form says its zone; the same range written with Z and with a +08:00 offset finds the same page
    assert.match(
      first.html,
      /id="time-zone-note">Times are UTC unless they end with <code>Z<\/code> or an offset/,
    );
    assert.match(first.html, /Stored from \(UTC, or with an offset\)/);
    const plus8 = (ms: number) => `${new Date(ms + 8 * 3_600_000).toISOString().slice(0, 23)}+08:00`;
    for (const [b, e] of [
      [new Date(begin).toISOString(), new Date(end).toISOString()],
      [plus8(begin), plus8(end)],
    ] as const) {
      const zoned = await get(
        `/messages/time?topic=${topic}&begin=${encodeURIComponent(b)}&end=${encodeURIComponent(e)}`,
      );
      assert.equal(zoned.status, 200, `${b} .. ${e}`);
      const rows = [...zoned.html.matchAll(/<tr data-key="([0-9A-F]+)">/g)].map((m) => m[1]!);
      assert.deepEqual(rows, rows1, `${b} .. ${e}`);
    }
    // an offset that moves the range away from the messages finds none of them
    const elsewhere = await get(
      `/messages/time?topic=${topic}&begin=${encodeURIComponent(utcField(begin) + '+08:00')}&end=${encodeURIComponent(utcField(end) + '+08:00')}`,
    );
    assert.equal(elsewhere.status, 200);
    assert.equal([...elsewhere.html.matchAll(/<tr data-key="[0-9A-F]+">/g)].length, 0);

    // a queue of its own
    const one = await get(`/messages/time?${q}&queue=1`);
    assert.equal(one.status, 200);
    assert.ok([...one.html.matchAll(/<tr data-key="[0-9A-F]+">/g)].length > 0);

    const backwards = await get(
      `/messages/time?topic=${topic}&begin=${utcField(end)}&end=${utcField(begin)}`,
    );
    assert.equal(backwards.status, 400);
    assert.match(inlineError(backwards.html), /^end: is before begin/);
    const unknown = await get(
      `/messages/time?topic=NoSuchTopic_t&begin=${utcField(begin)}&end=${utcField(end)}`,
    );
    assert.equal(unknown.status, 404);
    const outOfRange = await get(`/messages/time?${q}&queue=7`);
    assert.equal(outOfRange.status, 400);
    assert.match(inlineError(outOfRange.html), /^queueId: must be a queue of/);
    const badCursor = await get(`/messages/time?${q}&cursor=xyz`);
    assert.equal(badCursor.status, 400);
    const badTime = await get(`/messages/time?topic=${topic}&begin=yesterday&end=${utcField(end)}`);
    assert.equal(badTime.status, 400);
    assertPage(badTime.html, 'bad time');
  });

  test('trace page: Pub and each consumer group’s SubBefore/SubAfter as a table and a timeline; an untraced message says how to enable tracing', async () => {
    const topic = unique('TraceT');
    const group = unique('TraceG');
    await f.admin.createTopic({ topic, readQueues: 1, writeQueues: 1, cluster: 'DefaultCluster' });
    const consumer = new PushConsumer({
      namesrvAddr: f.h.cluster.namesrvAddr,
      consumerGroup: group,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      enableMsgTrace: true,
      ...FAST,
    });
    consumer.subscribe(topic, '*');
    const got: string[] = [];
    await consumer.start((m: ConsumerMessage) => void got.push(m.msgId));
    const producer = new Producer({
      producerGroup: unique('TraceP'),
      namesrvAddr: f.h.cluster.namesrvAddr,
      enableMsgTrace: true,
    });
    await producer.start();
    try {
      const r = await producer.send({ topic, body: 'traced', keys: 'trace-key' });
      const path = `/message/trace?id=${r.msgId}&topic=${topic}`;
      let html = '';
      await until(async () => {
        html = (await get(path)).html;
        return /<th scope="row">Pub<\/th>/.test(html) && html.includes('SubAfter');
      }, 'the Pub and SubAfter records');
      assertPage(html, 'trace page');
      const pub = rowCells(html, `Pub-${producer.options.producerGroup}-0`);
      assert.ok(pub, 'the Pub row');
      assert.equal(pub[2], producer.options.producerGroup);
      assert.match(pub[3]!, /^127\.0\.0\.1:\d+$/, 'client host');
      assert.match(pub[4]!, /^127\.0\.0\.1:\d+$/, 'store host');
      assert.equal(pub[6], 'success');
      assert.match(html, new RegExp(`<th scope="row">SubBefore</th><td>[^<]+</td><td>${group}</td>`));
      assert.match(html, new RegExp(`<th scope="row">SubAfter</th><td>[^<]+</td><td>${group}</td>`));
      assert.match(html, /<ol class="timeline" aria-label="Trace timeline"><li>/);
      assert.match(html, /success \(SUCCESS\)/);
      // the message page links to it
      const detail = (await get(`/message?id=${r.offsetMsgId}&topic=${topic}`)).html;
      assert.match(detail, /href="\/message\/trace\?id=[0-9A-F]+&amp;topic=/);
    } finally {
      await producer.shutdown();
      await consumer.shutdown();
    }
    const untraced = f.sent.get('order-1')!;
    const none = await get(`/message/trace?id=${untraced.msgId}&topic=${f.topic}`);
    assert.equal(none.status, 200);
    assert.match(
      none.html,
      /id="no-trace">No trace records of [0-9A-F]+\. Message tracing is off[^<]*<code>enableMsgTrace: true<\/code>/,
    );
  });

  test('the groups list looks each group’s mode up once, not on every render', async () => {
    let lookups = 0;
    const original = f.admin.consumerConnections.bind(f.admin);
    f.admin.consumerConnections = (group: string) => {
      lookups++;
      return original(group);
    };
    try {
      const first = await get('/groups');
      assert.equal(first.status, 200);
      assert.equal(rowCells(first.html, f.group)?.[1], 'PUSH');
      const listed = [...first.html.matchAll(/<tr data-key=/g)].length;
      assert.ok(lookups >= 1 && lookups <= listed, `${lookups} lookups for ${listed} groups`);
      const afterFirst = lookups;
      for (let i = 0; i < 3; i++) {
        const again = await get('/groups');
        assert.equal(rowCells(again.html, f.group)?.[1], 'PUSH');
      }
      assert.equal(lookups, afterFirst, 'no broker request for a mode looked up moments ago');
    } finally {
      f.admin.consumerConnections = original;
    }
  });

  test('POP groups: a SimpleConsumer holding invisible messages is marked POP in the list, with its in-flight count on its page', async () => {
    const { group, consumer: simple } = await popGroupHolding(f, 5);
    try {
      let page = '';
      await until(async () => {
        page = (await get(`/group?name=${group}`)).html;
        return /id="pop-inflight">5</.test(page);
      }, 'five in flight on the group page');
      assertPage(page, 'POP group page');
      assert.match(page, /id="pop-mode"><strong class="pop">POP<\/strong> group: its members consume by POP/);
      assert.match(page, /id="total-inflight">5</);
      assert.match(page, /href="\/group\/dlq\?name=/);
      const list = await get(`/groups?q=${group}`);
      const cells = rowCells(list.html, group);
      assert.ok(cells, 'the group in the list');
      assert.equal(cells[1], 'POP');
      // a push group (the fixture's, online) is not
      const push = rowCells((await get(`/groups?q=${f.group}`)).html, f.group);
      assert.equal(push?.[1], 'PUSH');
    } finally {
      await simple.shutdown();
    }
  });

  // last: it hangs broker-b's admin requests (cleared at the end)
  test('a group page with one broker hung shows the live broker’s queues and marks the other down', async () => {
    const expected = (await f.admin.consumerProgress(f.group)).queues.filter(
      (q) => q.topic === f.topic && q.brokerName === 'broker-a',
    );
    assert.equal(expected.length, 2);
    // a silent broker: each of its requests waits out this dashboard's request timeout
    const dashboard = new Dashboard({ namesrvAddr: f.h.cluster.namesrvAddr, port: 0, requestTimeout: 500 });
    try {
      const base = (await dashboard.start()).replace(/\/$/, '');
      f.h.cluster.broker('broker-b').faults.set({
        hang: true,
        requestCodes: [
          RequestCode.GET_CONSUME_STATS,
          RequestCode.GET_CONSUMER_CONNECTION_LIST,
          RequestCode.QUERY_ASSIGNMENT,
          RequestCode.GET_CONSUMER_RUNNING_INFO,
        ],
      });
      const res = await fetch(`${base}/group?name=${encodeURIComponent(f.group)}`);
      const html = await res.text();
      assert.equal(res.status, 200, html);
      assertPage(html, 'group page, broker-b hung');
      assert.match(html, /<li class="down" data-broker="broker-b">Broker broker-b \([^)]+\) is down: /);
      assert.match(html, /Its queues are not shown/);
      for (const q of expected) {
        const cells = rowCells(html, `${q.topic}@broker-a/${q.queueId}`);
        assert.ok(cells, `broker-a queue ${q.queueId}`);
        assert.deepEqual(cells.slice(3, 5), [String(q.brokerOffset), String(q.consumerOffset)]);
      }
      assert.doesNotMatch(html, new RegExp(`data-key="${f.topic}@broker-b/`));
      // the members still come from the broker that answers
      assert.match(html, /<h2 id="h-members">Members<\/h2><p>CONSUME_PASSIVELY/);
    } finally {
      f.h.cluster.broker('broker-b').faults.clear();
      await dashboard.close();
    }
  });
});
