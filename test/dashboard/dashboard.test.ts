/**
 * The dashboard over HTTP (node's fetch) against an embedded cluster with traffic: every page's
 * figures against the Admin client's, live updates fanned out from one poll, the cross-site and
 * authentication checks, and bad input rendered as an inline error.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { request } from 'node:http';
import { parse } from 'parse5';
import { Dashboard } from '../../src/dashboard/server.js';
import { Producer } from '../../src/producer/producer.js';
import { unique } from '../consumer/helpers.js';
import { csrfOf, dashboardFixture, rowCells, SENT, until, type DashboardFixture } from './fixture.js';

let f: DashboardFixture;

async function get(path: string, init?: RequestInit): Promise<{ status: number; html: string }> {
  const res = await fetch(`${f.base}${path}`, init);
  return { status: res.status, html: await res.text() };
}

async function post(
  path: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; html: string }> {
  return get(path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

/** A well-formed page: HTML5 without parse errors, one h1, a main landmark, no stack trace. */
function assertPage(html: string, what: string): void {
  const errors: string[] = [];
  parse(html, { onParseError: (e) => errors.push(e.code) });
  assert.deepEqual(errors, [], `${what}: HTML parse errors`);
  assert.equal(html.match(/<h1>/g)?.length, 1, `${what}: one h1`);
  assert.match(html, /<main id="main"/);
  assert.doesNotMatch(html, /\n\s+at .+\(.+:\d+:\d+\)/, `${what}: no stack trace`);
}

function inlineError(html: string): string {
  const m = /<div class="error" role="alert"><strong>Error:<\/strong> ([^<]*)<\/div>/.exec(html);
  assert.ok(m, 'an inline error');
  return m[1]!;
}

describe('dashboard on an embedded cluster with traffic', () => {
  before(async () => {
    f = await dashboardFixture();
  });
  after(async () => {
    await f?.close();
  });

  test('cluster page: every broker with its role, version and message counts as the Admin client reports', async () => {
    const info = await f.admin.clusterInfo();
    const { status, html } = await get('/cluster');
    assert.equal(status, 200);
    assertPage(html, '/cluster');
    assert.equal(info.brokers.length, 2);
    for (const b of info.brokers) {
      const stats = await f.admin.brokerRuntimeStats(b.address);
      const cells = rowCells(html, b.address);
      assert.ok(cells, `row of ${b.address}`);
      assert.deepEqual(cells.slice(0, 5), [b.brokerName, b.cluster, 'master', b.address, stats.version]);
      assert.equal(cells[7], String(stats.msgPutTotalTodayNow - stats.msgPutTotalTodayMorning));
    }
    const total = info.brokers.length;
    assert.match(html, new RegExp(`${total} broker address`));
    assert.match(html, /<svg class="chart"[^>]*role="img"/);
    // the root redirects to the cluster page
    const root = await fetch(`${f.base}/`, { redirect: 'manual' });
    assert.equal(root.status, 303);
    assert.equal(root.headers.get('location'), '/cluster');
  });

  test('topics page finds the topic; its page shows each queue with the min and max offsets of topicStats', async () => {
    const list = await get(`/topics?q=${encodeURIComponent(f.topic.slice(0, 8))}`);
    assert.equal(list.status, 200);
    assertPage(list.html, '/topics');
    assert.ok(rowCells(list.html, f.topic), 'the topic is listed');
    assert.equal(rowCells(list.html, 'TBW102'), undefined, 'system topics hidden by default');

    const stats = await f.admin.topicStats(f.topic);
    const { status, html } = await get(`/topic?name=${encodeURIComponent(f.topic)}`);
    assert.equal(status, 200);
    assertPage(html, '/topic');
    assert.equal(stats.queues.length, 4);
    let messages = 0;
    for (const q of stats.queues) {
      const cells = rowCells(html, `${q.brokerName}/${q.queueId}`);
      assert.ok(cells, `queue ${q.brokerName}/${q.queueId}`);
      assert.deepEqual(cells.slice(0, 5), [
        q.brokerName,
        String(q.queueId),
        String(q.minOffset),
        String(q.maxOffset),
        String(q.maxOffset - q.minOffset),
      ]);
      messages += Number(cells[4]);
    }
    assert.equal(messages, SENT);
    assert.match(html, new RegExp(`href="/group\\?name=${f.group}"`), 'the consuming group is linked');
  });

  test('consumer group page: members, per-queue offsets and lag, consume TPS as consumerProgress reports', async () => {
    const list = await get('/groups');
    assertPage(list.html, '/groups');
    assert.ok(rowCells(list.html, f.group), 'the group is listed');

    const progress = await f.admin.consumerProgress(f.group);
    const members = await f.admin.consumerConnections(f.group);
    const { status, html } = await get(`/group?name=${encodeURIComponent(f.group)}`);
    assert.equal(status, 200);
    assertPage(html, '/group');
    for (const m of members.connections) assert.ok(rowCells(html, m.clientId), `member ${m.clientId}`);
    const queues = progress.queues.filter((q) => q.topic === f.topic);
    assert.equal(queues.length, 4);
    for (const q of queues) {
      const cells = rowCells(html, `${q.topic}@${q.brokerName}/${q.queueId}`);
      assert.ok(cells);
      assert.deepEqual(cells.slice(3, 6), [String(q.brokerOffset), String(q.consumerOffset), String(q.lag)]);
    }
    assert.match(html, new RegExp(`id="total-lag">${progress.totalLag}<`));
    assert.match(html, /Lag \(messages not yet consumed\)/);
  });

  test('messages: found by key, by offsetMsgId, by queue range; body as text, hex and JSON', async () => {
    const [key, ids] = [...f.sent][3]!;
    const byKey = await get(`/messages?mode=key&topic=${encodeURIComponent(f.topic)}&key=${key}`);
    assert.equal(byKey.status, 200);
    assertPage(byKey.html, '/messages by key');
    assert.ok(rowCells(byKey.html, ids.msgId), 'the keyed message');
    assert.match(byKey.html, /Messages found \(1\)/);

    const byId = await get(`/messages?mode=id&id=${ids.offsetMsgId}`);
    assert.equal(byId.status, 200);
    assert.ok(rowCells(byId.html, ids.msgId));

    const stats = await f.admin.topicStats(f.topic);
    const q = stats.queues.find((x) => x.maxOffset > 1)!;
    const range = await get(
      `/messages?mode=queue&topic=${encodeURIComponent(f.topic)}&broker=${q.brokerName}&queue=${q.queueId}&from=0&count=64`,
    );
    assert.equal(range.status, 200);
    assert.match(range.html, new RegExp(`Messages found \\(${q.maxOffset}\\)`));

    const base = `/message?id=${ids.offsetMsgId}&topic=${encodeURIComponent(f.topic)}`;
    const text = await get(base);
    assert.equal(text.status, 200);
    assertPage(text.html, '/message');
    const order = Number(key.split('-')[1]);
    assert.match(text.html, new RegExp(`\\{&quot;order&quot;:${order},&quot;item&quot;:&quot;book&quot;\\}`));
    assert.match(text.html, new RegExp(`<dd>${key}</dd>`));
    assert.match(text.html, /No trace/);
    const hex = await get(`${base}&view=hex`);
    assert.match(hex.html, /00000000 {2}7b 22 6f 72/);
    const json = await get(`${base}&view=json`);
    assert.match(json.html, /&quot;item&quot;: &quot;book&quot;/);
  });

  test('a traced message shows its trace records on its page', async () => {
    const traced = new Producer({
      producerGroup: unique('TracedP'),
      namesrvAddr: f.h.cluster.namesrvAddr,
      enableMsgTrace: true,
    });
    await traced.start();
    try {
      const r = await traced.send({ topic: f.topic, body: 'traced', keys: 'traced-key' });
      const path = `/message?id=${r.offsetMsgId}&topic=${encodeURIComponent(f.topic)}`;
      let html = '';
      await until(async () => {
        html = (await get(path)).html;
        return html.includes('<caption>Trace records</caption>');
      }, 'the trace record');
      assert.match(html, /<th scope="row">Pub<\/th>/);
    } finally {
      await traced.shutdown();
    }
  });

  test('live updates: two subscribers share one poll, one request per broker per refresh; polling stops with the last tab', async () => {
    const calls = new Map<string, number>();
    const original = f.admin.brokerRuntimeStats.bind(f.admin);
    f.admin.brokerRuntimeStats = (broker: string) => {
      calls.set(broker, (calls.get(broker) ?? 0) + 1);
      return original(broker);
    };
    try {
      const before = f.dashboard.hub.pollCounts.get('cluster') ?? 0;
      const tabs = [new AbortController(), new AbortController()];
      const received = [0, 0];
      const readers = tabs.map(async (tab, i) => {
        const res = await fetch(`${f.base}/events?view=cluster`, { signal: tab.signal });
        assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
        const decoder = new TextDecoder();
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            const text = decoder.decode(chunk);
            received[i]! += text.split('event: update').length - 1;
            if (text.includes('event: update')) assert.match(text, /"brokers":"/);
          }
        } catch (err) {
          if ((err as Error).name !== 'AbortError') throw err;
        }
      });
      await until(async () => received[0]! >= 3 && received[1]! >= 3, 'three updates in both tabs');
      assert.equal(f.dashboard.hub.subscriberCount('cluster'), 2);
      for (const tab of tabs) tab.abort();
      await Promise.all(readers);
      await until(async () => !f.dashboard.hub.polling, 'polling stopped');
      const polls = f.dashboard.hub.pollCounts.get('cluster')! - before;
      assert.ok(polls >= 3);
      const brokers = (await f.admin.clusterInfo()).brokers.map((b) => b.address);
      // one GET_BROKER_RUNTIME_INFO per broker per refresh, whatever the number of tabs
      for (const b of brokers) assert.equal(calls.get(b), polls, `requests to ${b}`);
      assert.ok(received.every((n) => n >= 3 && n <= polls));
      const after = new Map(calls);
      await new Promise((r) => setTimeout(r, 400)); // four refresh periods without a tab
      assert.deepEqual(calls, after, 'no poll without a subscriber');
      assert.equal(f.dashboard.hub.subscriberCount('cluster'), 0);
    } finally {
      f.admin.brokerRuntimeStats = original;
    }
  });

  test('state-changing requests: cross-site ones and ones without the CSRF token are refused', async () => {
    const page = await get('/topics');
    const csrf = csrfOf(page.html);
    const topic = `${f.topic}-new`;
    const form = {
      topic,
      cluster: 'DefaultCluster',
      readQueues: '2',
      writeQueues: '2',
      perm: '6',
      messageType: 'FIFO',
    };
    assert.match(
      page.html,
      /<select id="create-type" name="messageType"><option>NORMAL<\/option><option>FIFO<\/option>/,
    );

    const noToken = await post('/topics/create', form);
    assert.equal(noToken.status, 403);
    assert.match(noToken.html, /CSRF token/);
    const wrongToken = await post('/topics/create', { ...form, csrf: 'x'.repeat(csrf.length) });
    assert.equal(wrongToken.status, 403);
    const otherOrigin = await post('/topics/create', { ...form, csrf }, { origin: 'http://evil.example' });
    assert.equal(otherOrigin.status, 403);
    assert.match(otherOrigin.html, /cross-site/);
    const crossSite = await post('/topics/create', { ...form, csrf }, { 'sec-fetch-site': 'cross-site' });
    assert.equal(crossSite.status, 403);
    await assert.rejects(f.admin.topicRoute(topic), /does not exist/, 'nothing was created');

    const ok = await post('/topics/create', { ...form, csrf }, { 'sec-fetch-site': 'same-origin' });
    assert.equal(ok.status, 200);
    assert.match(ok.html, /role="status">Topic .* created or updated on .* as FIFO/);
    const route = await f.admin.topicRoute(topic);
    assert.deepEqual(
      route.queues.map((q) => q.readQueueNums),
      [2, 2],
    );
    assert.deepEqual(
      (await f.admin.topicConfig(topic)).map((c) => [c.messageType, c.order]),
      [
        ['FIFO', true],
        ['FIFO', true],
      ],
    );
    const listed = await get(`/topics?q=${encodeURIComponent(topic)}`);
    assert.match(listed.html, />FIFO<\/td>/);
    const badType = await post('/topics/create', { ...form, messageType: '<b>X', csrf });
    assert.equal(badType.status, 400);
    assert.match(inlineError(badType.html), /messageType: must be one of NORMAL/);
    assert.doesNotMatch(badType.html, /<b>X/);

    // deletion wants the name typed again
    const unconfirmed = await post('/topics/delete', {
      topic,
      cluster: 'DefaultCluster',
      confirm: 'x',
      csrf,
    });
    assert.equal(unconfirmed.status, 400);
    assert.match(inlineError(unconfirmed.html), /confirm: type the topic name/);
    const deleted = await post('/topics/delete', { topic, cluster: 'DefaultCluster', confirm: topic, csrf });
    assert.equal(deleted.status, 200);
    await assert.rejects(f.admin.topicRoute(topic), /does not exist/);
  });

  test('a Host header naming another site (DNS rebinding) is refused on a loopback bind', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: f.dashboard.port, path: '/cluster', headers: { host: 'evil.example:80' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    assert.equal(status, 403);
  });

  test('bad input: unknown topic, group, message, malformed fields and a reset without force on a live group are inline errors', async () => {
    const topic = await get('/topic?name=NoSuchTopic');
    assert.equal(topic.status, 404);
    assertPage(topic.html, 'unknown topic');
    assert.match(inlineError(topic.html), /topic NoSuchTopic does not exist \(ERR_TOPIC_NOT_FOUND\)/);

    const group = await get('/group?name=NoSuchGroup');
    assert.equal(group.status, 404);
    assert.match(inlineError(group.html), /consumer group NoSuchGroup/);

    const key = await get(`/messages?mode=key&topic=${encodeURIComponent(f.topic)}&key=nokey`);
    assert.equal(key.status, 404);
    assert.match(inlineError(key.html), /no message found/);
    assert.match(key.html, /Find by key/, 'the forms stay');

    const badId = await get('/message?id=zzz');
    assert.ok(badId.status === 400 || badId.status === 404, String(badId.status));
    assertPage(badId.html, 'bad id');
    inlineError(badId.html);

    const badQueue = await get(
      `/messages?mode=queue&topic=${encodeURIComponent(f.topic)}&broker=broker-a&queue=abc`,
    );
    assert.equal(badQueue.status, 400);
    assert.match(inlineError(badQueue.html), /queue: must be an integer/);

    const missing = await get('/topic');
    assert.equal(missing.status, 400);
    assert.match(inlineError(missing.html), /name: is required/);

    const nopage = await get('/nope');
    assert.equal(nopage.status, 404);
    inlineError(nopage.html);

    const csrf = csrfOf((await get('/topics')).html);
    const online = await post('/group/reset', {
      group: f.group,
      topic: f.topic,
      timestamp: 'earliest',
      csrf,
    });
    assert.equal(online.status, 409);
    assert.match(inlineError(online.html), /live member\(s\); pass force/);
    assertPage(online.html, 'reset refused');
    const badTime = await post('/group/reset', {
      group: f.group,
      topic: f.topic,
      timestamp: 'yesterday-ish',
      csrf,
    });
    assert.equal(badTime.status, 400);
    assert.match(inlineError(badTime.html), /timestamp: expected latest, earliest/);
  });

  test('reset offset by time through the form moves every queue of the group to the earliest offset', async () => {
    const csrf = csrfOf((await get(`/group?name=${encodeURIComponent(f.group)}`)).html);
    const r = await post('/group/reset', {
      group: f.group,
      topic: f.topic,
      timestamp: 'earliest',
      force: '1',
      csrf,
    });
    assert.equal(r.status, 200);
    assert.match(r.html, /role="status">Offsets of .* reset \(4 queues\)/);
    const stats = await f.admin.topicStats(f.topic);
    for (const q of stats.queues) {
      const cells = rowCells(r.html, `${f.topic}@${q.brokerName}/${q.queueId}`);
      assert.ok(cells);
      // the reset table comes after the progress table: the last row with that key
      const all = [
        ...r.html.matchAll(new RegExp(`<tr data-key="${f.topic}@${q.brokerName}/${q.queueId}">`, 'g')),
      ];
      assert.equal(all.length, 2);
    }
    assert.match(r.html, /<caption>New offsets<\/caption>/);
    const newOffsets = r.html.slice(r.html.indexOf('<caption>New offsets'));
    for (const q of stats.queues) {
      const cells = rowCells(newOffsets, `${f.topic}@${q.brokerName}/${q.queueId}`)!;
      assert.equal(cells[3], String(q.minOffset));
    }
  });

  test('resend: a member of the group consumes the message again (CONSUME_MESSAGE_DIRECTLY)', async () => {
    const [, ids] = [...f.sent][0]!;
    const base = `/message?id=${ids.offsetMsgId}&topic=${encodeURIComponent(f.topic)}`;
    const csrf = csrfOf((await get(base)).html);
    const r = await post('/message/resend', { id: ids.offsetMsgId, topic: f.topic, group: f.group, csrf });
    assert.equal(r.status, 200, r.html.slice(0, 2000));
    assert.match(r.html, /role="status">Message consumed again by .*: CR_SUCCESS/);
    const unknown = await post('/message/resend', {
      id: ids.offsetMsgId,
      topic: f.topic,
      group: 'NoSuchGroup',
      csrf,
    });
    assert.ok(unknown.status >= 400);
    inlineError(unknown.html);
  });

  test('producer health: the brokers of a watched producer and its isolation events', async () => {
    const empty = await get('/producers');
    assert.match(empty.html, /No producer of this process is watched/);
    const stop = f.dashboard.producers.watch(f.h.producer, 'test-producer');
    try {
      const { status, html } = await get('/producers');
      assert.equal(status, 200);
      assertPage(html, '/producers');
      for (const h of f.h.producer.brokerHealth()) {
        const cells = rowCells(html, `test-producer/${h.brokerName}`);
        assert.ok(cells, h.brokerName);
        assert.equal(cells[1], h.isolated ? 'isolated' : 'available');
      }
      assert.match(html, /Isolation events/);
    } finally {
      stop();
    }
    assert.equal(f.dashboard.producers.size, 0);
  });

  test('a broker that goes down shows as down on the cluster page', async () => {
    const victim = f.h.cluster.brokers[1]!;
    await f.h.cluster.stopBroker(victim.name);
    const { status, html } = await get('/cluster');
    assert.equal(status, 200);
    const cells = rowCells(html, victim.addr);
    assert.ok(cells, 'the stopped broker still has a row');
    assert.match(cells[4]!, /unavailable|unregistered/);
    assert.match(html, /1 down/);
  });
});

test('basic authentication: without or with wrong credentials 401, with them the page', async () => {
  const d = new Dashboard({
    namesrvAddr: '127.0.0.1:9',
    port: 0,
    auth: { user: 'ops', password: 's3cret' },
  });
  const base = await d.start();
  try {
    const none = await fetch(`${base}assets/app.css`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
    const wrong = await fetch(`${base}assets/app.css`, { headers: { authorization: basic('ops', 'nope') } });
    assert.equal(wrong.status, 401);
    const ok = await fetch(`${base}assets/app.css`, { headers: { authorization: basic('ops', 's3cret') } });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /\.chart/);
    // a NameServer that does not answer: an inline error, not a blank page
    const page = await fetch(`${base}cluster`, { headers: { authorization: basic('ops', 's3cret') } });
    assert.ok(page.status >= 500, String(page.status));
    assert.match(await page.text(), /role="alert"/);
  } finally {
    await d.close();
  }
});
