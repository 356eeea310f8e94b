/** The dashboard's parts without a cluster: the shared poller, options, parsing and rendering helpers. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Script } from 'node:vm';
import { EventEmitter } from 'node:events';
import { APP_JS } from '../../src/dashboard/assets.js';
import { LiveHub, type Fragments } from '../../src/dashboard/live.js';
import { validateDashboardOptions } from '../../src/dashboard/options.js';
import { ProducerWatch } from '../../src/dashboard/producer-watch.js';
import { statusOf } from '../../src/dashboard/server.js';
import { parseResetTime } from '../../src/dashboard/views/groups.js';
import { parseStoreTime } from '../../src/dashboard/views/browse.js';
import { GroupModeCache } from '../../src/dashboard/views/group-mode.js';
import type { Admin } from '../../src/admin/admin.js';
import { renderBody } from '../../src/dashboard/views/messages.js';
import { resendableMessage } from '../../src/dashboard/views/dlq.js';
import type { AdminMessage } from '../../src/admin/types.js';
import { isolationWindows } from '../../src/dashboard/views/producers.js';
import { exposureWarning } from '../../src/cli/commands/dashboard.js';
import {
  BrokerUnavailableError,
  ConsumerGroupOnlineError,
  RequestNotSupportedError,
  TopicNotFoundError,
  InvalidArgumentError,
  NameServerUnreachableError,
} from '../../src/errors.js';
import { invalidArgument } from '../invalid-argument.js';

function expectInvalidArgument(fn: () => unknown, field: string): void {
  assert.equal(invalidArgument(fn).field, field);
}

test('the live hub polls a view once per refresh for all its subscribers and stops without them', async () => {
  let polls = 0;
  const hub = new LiveHub(20, () => ({}));
  const view = {
    poll: (): Promise<Fragments> => Promise.resolve({ n: String(++polls) }),
  };
  const a: string[] = [];
  const b: string[] = [];
  const offA = hub.subscribe(
    'v',
    () => view,
    (f) => a.push(f['n']!),
  );
  const offB = hub.subscribe(
    'v',
    () => assert.fail('one view per key'),
    (f) => b.push(f['n']!),
  );
  try {
    while (a.length < 3) await new Promise((r) => setTimeout(r, 5));
    assert.equal(b.length, a.length);
    assert.deepEqual(a, b, 'both saw the same polls');
    assert.deepEqual(
      a,
      a.map((_, i) => String(i + 1)),
    );
    offA();
    const before = polls;
    while (b.length < 5) await new Promise((r) => setTimeout(r, 5));
    assert.ok(polls > before, 'one subscriber keeps it polling');
    offB();
    await new Promise((r) => setTimeout(r, 30)); // a poll already running ends
    const stopped = polls;
    assert.equal(hub.polling, false);
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(polls, stopped, 'no subscriber, no poll');
  } finally {
    hub.close();
  }
});

test('a failing poll is rendered by the hub error handler and polling goes on', async () => {
  let n = 0;
  const hub = new LiveHub(10, (key, err) => ({ error: `${key}: ${(err as Error).message}` }));
  const got: Fragments[] = [];
  const off = hub.subscribe(
    'x',
    () => ({
      poll: () => (++n === 1 ? Promise.reject(new Error('broker down')) : Promise.resolve({ ok: 'yes' })),
    }),
    (f) => got.push(f),
  );
  try {
    while (got.length < 2) await new Promise((r) => setTimeout(r, 5));
    assert.deepEqual(got.slice(0, 2), [{ error: 'x: broker down' }, { ok: 'yes' }]);
  } finally {
    off();
    hub.close();
  }
});

test('dashboard options: defaults, unknown keys and bad values refused naming the field', () => {
  const o = validateDashboardOptions({ namesrvAddr: '127.0.0.1:9876' });
  assert.equal(o.port, 8080);
  assert.equal(o.host, '127.0.0.1');
  assert.equal(o.refreshMs, 2000);
  assert.equal(o.auth, undefined);
  expectInvalidArgument(() => validateDashboardOptions({ namesrvAddr: 'a:1', prot: 1 } as never), 'prot');
  expectInvalidArgument(() => validateDashboardOptions({ namesrvAddr: 'a:1', port: 70000 }), 'port');
  expectInvalidArgument(
    () => validateDashboardOptions({ namesrvAddr: 'a:1', auth: { user: 'a:b', password: 'p' } }),
    'auth.user',
  );
  expectInvalidArgument(() => validateDashboardOptions({ namesrvAddr: 'a:1', refreshMs: 1 }), 'refreshMs');
  const saved = process.env['NAMESRV_ADDR'];
  delete process.env['NAMESRV_ADDR'];
  try {
    expectInvalidArgument(() => validateDashboardOptions({}), 'namesrvAddr');
  } finally {
    if (saved !== undefined) process.env['NAMESRV_ADDR'] = saved;
  }
});

test('reset times: latest, earliest, epoch ms and dates; anything else names the field', () => {
  assert.equal(parseResetTime('latest'), -1);
  assert.equal(parseResetTime('earliest'), 0);
  assert.equal(parseResetTime('1764547200000'), 1764547200000);
  assert.equal(parseResetTime('2026-12-01T08:30:00Z'), Date.UTC(2026, 11, 1, 8, 30));
  expectInvalidArgument(() => parseResetTime('soon'), 'timestamp');
  expectInvalidArgument(() => parseResetTime(undefined), 'timestamp');
});

test('a dead letter is resent with its tags, keys, user properties, message group and UNIQ_KEY, not the broker-owned properties', () => {
  const uniq = '7F00000100002A9F0000000000000007';
  const dead: AdminMessage = {
    topic: '%DLQ%G',
    msgId: uniq,
    offsetMsgId: '7F00000100002A9F00000000000000FF',
    tags: 'TagA',
    keys: ['k1', 'k2'],
    body: Buffer.from('hello'),
    properties: {
      UNIQ_KEY: uniq,
      KEYS: 'k1 k2',
      TAGS: 'TagA',
      __SHARDINGKEY: 'order-7',
      origin: 'app',
      REAL_TOPIC: '%RETRY%G',
      REAL_QID: '0',
      RETRY_TOPIC: 'Orders',
      DELAY: '3',
      MIN_OFFSET: '0',
      MAX_OFFSET: '9',
      MSG_REGION: 'DefaultRegion',
      TRACE_ON: 'true',
      ORIGIN_MESSAGE_ID: '7F00000100002A9F0000000000000001',
      RECONSUME_TIME: '16',
      MAX_RECONSUME_TIMES: '16',
      TRAN_MSG: 'true',
      TIMER_DELIVER_MS: '1',
      WAIT: 'true',
    },
    queueId: 0,
    queueOffset: 3,
    commitLogOffset: 100,
    reconsumeTimes: 16,
    bornTimestamp: 1,
    storeTimestamp: 2,
    bornHost: '127.0.0.1:5000',
    storeHost: '127.0.0.1:10911',
    sysFlag: 0,
  };
  assert.deepEqual(resendableMessage(dead, 'Orders'), {
    topic: 'Orders',
    body: Buffer.from('hello'),
    tags: 'TagA',
    keys: ['k1', 'k2'],
    properties: { origin: 'app' },
    msgId: uniq,
    messageGroup: 'order-7',
  });
  // a message stored without UNIQ_KEY gets a new id from the producer
  const { UNIQ_KEY: _, ...noUniq } = dead.properties;
  assert.equal(resendableMessage({ ...dead, properties: noUniq }, 'Orders').msgId, undefined);
});

test('store times: zone-less is UTC; Z and explicit offsets are honoured; bad ones name the field', () => {
  const utc = Date.UTC(2026, 11, 1, 8, 30);
  assert.equal(parseStoreTime('begin', '2026-12-01T08:30'), utc);
  assert.equal(parseStoreTime('begin', '2026-12-01 08:30:00'), utc);
  assert.equal(parseStoreTime('begin', '2026-12-01T08:30:00.000Z'), utc);
  assert.equal(parseStoreTime('begin', '2026-12-01T16:30+08:00'), utc);
  assert.equal(parseStoreTime('begin', '2026-12-01T03:00:00-0530'), utc);
  assert.equal(parseStoreTime('begin', String(utc)), utc);
  for (const bad of ['yesterday', '2026-12-01T08:30+25:00', '2026-12-01T08:30+08:75', '2026-12-01T08:30 UTC'])
    expectInvalidArgument(() => parseStoreTime('begin', bad), 'begin');
});

test('group modes are looked up once per group within their lifetime, again after it', async () => {
  let now = 1_000;
  const asked: string[] = [];
  const admin = {
    consumerConnections: (group: string) => {
      asked.push(group);
      return Promise.resolve({
        group,
        connections: [],
        subscriptions: {},
        consumeType: 'CONSUME_ACTIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      });
    },
  } as unknown as Admin;
  const cache = new GroupModeCache(admin, 10_000, () => now);
  assert.equal((await cache.get('A')).consumeType, 'CONSUME_ACTIVELY');
  await cache.get('A');
  await cache.get('B');
  now += 9_999;
  await cache.get('A');
  assert.deepEqual(asked, ['A', 'B']);
  now += 1;
  await cache.get('A');
  assert.deepEqual(asked, ['A', 'B', 'A']);
});

test('message bodies as text, hex and JSON, escaped', () => {
  const body = Buffer.from('{"a":"<b>"}');
  assert.equal(renderBody(body, 'text'), '<pre class="body">{&quot;a&quot;:&quot;&lt;b&gt;&quot;}</pre>');
  assert.match(
    renderBody(body, 'hex'),
    /^<pre class="body">00000000 {2}7b 22 61 22 3a 22 3c 62 3e 22 7d {17}\{&quot;a&quot;:&quot;&lt;b&gt;&quot;\}<\/pre>$/,
  );
  assert.match(renderBody(body, 'json'), /&quot;a&quot;: &quot;&lt;b&gt;&quot;/);
  assert.match(renderBody(Buffer.from('not json'), 'json'), /The body is not JSON/);
});

test('isolation windows pair isolated and recovered events per producer and broker; an open one ends now', () => {
  const e = (at: number, producer: string, brokerName: string, kind: 'isolated' | 'recovered') => ({
    at,
    producer,
    brokerName,
    kind,
  });
  assert.deepEqual(
    isolationWindows(
      [
        e(10, 'p', 'a', 'isolated'),
        e(12, 'p', 'a', 'isolated'),
        e(15, 'q', 'a', 'isolated'),
        e(20, 'p', 'a', 'recovered'),
        e(30, 'p', 'b', 'recovered'),
      ],
      100,
    ),
    [
      { brokerName: 'a', from: 10, to: 20 },
      { brokerName: 'a', from: 15, to: 100 },
    ],
  );
});

test('the producer watch records isolation events and lets go of the producer', () => {
  const producer = Object.assign(new EventEmitter(), {
    brokerHealth: () => [
      { brokerName: 'broker-a', isolated: false, latencyMs: 3, failures: 0, reachable: true },
    ],
  });
  const watch = new ProducerWatch();
  const off = watch.watch(producer as never, 'demo');
  producer.emit('brokerIsolated', { brokerName: 'broker-a', reason: 'timeout', untilMs: 500 });
  producer.emit('brokerRecovered', { brokerName: 'broker-a' });
  assert.deepEqual(
    watch.events.map((x) => [x.producer, x.brokerName, x.kind, x.reason]),
    [
      ['demo', 'broker-a', 'isolated', 'timeout'],
      ['demo', 'broker-a', 'recovered', undefined],
    ],
  );
  assert.deepEqual(
    watch.health().map((h) => [h.label, h.brokers.length]),
    [['demo', 1]],
  );
  off();
  assert.equal(producer.listenerCount('brokerIsolated'), 0);
  assert.equal(watch.size, 0);
});

test('HTTP status of failures: the caller, a missing thing, a conflict, the cluster', () => {
  assert.equal(statusOf(new InvalidArgumentError('x', 'bad')), 400);
  assert.equal(statusOf(new TopicNotFoundError('T')), 404);
  assert.equal(statusOf(new ConsumerGroupOnlineError('G', 1)), 409);
  assert.equal(statusOf(new RequestNotSupportedError('127.0.0.1:1', 351, 'GET_TOPIC_CONFIG')), 501);
  assert.equal(statusOf(new BrokerUnavailableError('127.0.0.1:1')), 503);
  assert.equal(statusOf(new NameServerUnreachableError(['127.0.0.1:9876'])), 503);
  assert.equal(statusOf(new Error('bug')), 500);
});

test('binding beyond loopback warns, louder without authentication', () => {
  assert.equal(exposureWarning('127.0.0.1', false), undefined);
  assert.equal(exposureWarning('localhost', false), undefined);
  assert.match(exposureWarning('0.0.0.0', false)!, /NO authentication/);
  assert.match(exposureWarning('0.0.0.0', true)!, /basic auth is on/);
});

test('the browser script is valid JavaScript and needs no other file', () => {
  assert.doesNotThrow(() => new Script(APP_JS));
  assert.doesNotMatch(APP_JS, /import|require\(|https?:/);
});
