/**
 * Dashboard robustness (issue 27, finding 9): a broker registered at the NameServer that cannot be
 * reached is shown as down on the groups page and on the pages of topics it claims (not a 503 for
 * the whole page); live streams are bounded (one poller per distinct view, a cap on views and on
 * streams, refused with 503/429 and Retry-After); repeated basic-auth failures from one address
 * lock that address out with 429 and Retry-After, other addresses unaffected.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { request, type IncomingHttpHeaders, type ClientRequest } from 'node:http';
import { Admin } from '../../src/admin/admin.js';
import { AuthThrottle, MAX_LOCKOUT_MS } from '../../src/dashboard/auth-throttle.js';
import { Dashboard } from '../../src/dashboard/server.js';
import { topicConfig } from '../../src/protocol/headers/register.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { closedPort } from '../cli/run-cli.js';
import { unique } from '../consumer/helpers.js';
import { until } from './fixture.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One GET (from `localAddress`), read to the end. */
function get(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  localAddress?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      { headers, agent: false, ...(localAddress ? { localAddress } : {}) },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens `/events…`; resolves once the status is known (the stream stays open until `close`). */
function openStream(
  base: string,
  path: string,
): Promise<{ status: number; retryAfter?: string; close(): void }> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(`${base}${path}`, { agent: false }, (res) => {
      res.resume();
      const retryAfter = res.headers['retry-after'];
      resolve({
        status: res.statusCode ?? 0,
        ...(retryAfter ? { retryAfter } : {}),
        close: () => req.destroy(),
      });
    });
    req.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
    req.end();
  });
}

describe('dashboard with a broker that cannot be reached', () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  let dashboard: Dashboard;
  let base: string;
  let dead: string;
  const topic = unique('DownT');

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr, mqClientApiTimeout: 3000 });
    await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
    // A broker that registered (with the topic) and then died: nothing listens at its address.
    dead = `127.0.0.1:${await closedPort()}`;
    cluster.namesrv.routes.registerBroker({
      clusterName: 'DefaultCluster',
      brokerAddr: dead,
      brokerName: 'broker-dead',
      brokerId: 0,
      haServerAddr: '',
      topicConfigWrapper: {
        dataVersion: { counter: 1, timestamp: 1 },
        topicConfigTable: { [topic]: topicConfig(topic, { readQueueNums: 2, writeQueueNums: 2 }) },
      },
    });
    dashboard = new Dashboard({ admin, port: 0, refreshMs: 100 });
    base = (await dashboard.start()).replace(/\/$/, '');
  });
  after(async () => {
    await dashboard.close();
    await admin.close();
    await cluster.stop();
  });

  it('the groups page lists the groups of the live broker and shows the dead one as down', async () => {
    const r = await get(base, '/groups?all=1');
    assert.equal(r.status, 200, r.body);
    assert.match(
      r.body,
      new RegExp(`<li class="down" data-broker="broker-dead">Broker broker-dead \\(${dead}\\) is down: `),
    );
    assert.match(r.body, /Its groups are not shown/);
    assert.match(r.body, /data-key="TOOLS_CONSUMER"/, 'the live broker’s groups are listed');
  });

  it('a topic page the dead broker claims shows its queues on the live broker and the dead one as down', async () => {
    const r = await get(base, `/topic?name=${topic}`);
    assert.equal(r.status, 200, r.body);
    assert.match(r.body, /data-broker="broker-dead"/);
    assert.match(r.body, /data-key="broker-a\/0"/);
    assert.match(r.body, /data-key="broker-a\/1"/);
    assert.doesNotMatch(r.body, /data-key="broker-dead\//);
    // the route still names both brokers
    assert.match(r.body, /<th scope="row">broker-dead<\/th>/);
  });

  it('Admin: the report calls list the dead broker; the strict calls still reject', async () => {
    const stats = await admin.topicStatsReport(topic);
    assert.deepEqual(
      stats.unreachable.map((u) => [u.brokerName, u.address, u.error.name]),
      [['broker-dead', dead, 'BrokerUnavailableError']],
    );
    assert.equal(stats.queues.length, 2);
    await assert.rejects(admin.topicStats(topic), { name: 'BrokerUnavailableError' });
    const groups = await admin.consumerGroupsReport();
    assert.deepEqual(
      groups.unreachable.map((u) => u.brokerName),
      ['broker-dead'],
    );
    await assert.rejects(admin.consumerGroups(), { name: 'BrokerUnavailableError' });
  });
});

describe('dashboard live streams are bounded', () => {
  let cluster: EmbeddedCluster;
  let dashboard: Dashboard;
  let base: string;
  const open: Array<{ close(): void }> = [];

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    dashboard = new Dashboard({
      namesrvAddr: cluster.namesrvAddr,
      port: 0,
      refreshMs: 100,
      maxLiveViews: 3,
      maxLiveStreams: 5,
    });
    base = (await dashboard.start()).replace(/\/$/, '');
  });
  after(async () => {
    for (const s of open) s.close();
    await dashboard.close();
    await cluster.stop();
  });

  it('distinct views past the cap get 503, streams past the cap 429; a shared view costs no poller', async () => {
    const stream = async (path: string) => {
      const s = await openStream(base, path);
      open.push(s);
      return s;
    };
    for (const name of ['a', 'b', 'c'])
      assert.equal((await stream(`/events?view=topic&name=${name}`)).status, 200);
    await until(async () => dashboard.hub.polledViews === 3, 'three views polled');
    const fourth = await stream('/events?view=topic&name=d');
    assert.equal(fourth.status, 503);
    assert.equal(fourth.retryAfter, '10');
    // the same view again shares its poller
    assert.equal((await stream('/events?view=topic&name=a')).status, 200);
    assert.equal((await stream('/events?view=topic&name=b')).status, 200);
    await until(async () => dashboard.hub.subscriberCount('topic:a') === 2, 'two subscribers of topic a');
    assert.equal(dashboard.hub.polledViews, 3);
    const sixth = await stream('/events?view=topic&name=a');
    assert.equal(sixth.status, 429);
    assert.equal(sixth.retryAfter, '10');

    // closing every stream of a view frees its place
    open[2]!.close();
    await until(async () => dashboard.hub.polledViews === 2, 'view c no longer polled');
    assert.equal((await stream('/events?view=topic&name=d')).status, 200);
    assert.equal(dashboard.hub.subscriberCount('topic:d'), 1);
  });
});

describe('dashboard basic auth throttling', () => {
  let cluster: EmbeddedCluster;
  let dashboard: Dashboard;
  let base: string;
  const basic = (user: string, password: string) => ({
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  });
  const RIGHT = basic('ops', 'right-password');
  const WRONG = basic('ops', 'guess');

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    dashboard = new Dashboard({
      namesrvAddr: cluster.namesrvAddr,
      port: 0,
      auth: { user: 'ops', password: 'right-password' },
      authMaxFailures: 3,
      authLockoutMs: 500,
    });
    base = (await dashboard.start()).replace(/\/$/, '');
  });
  after(async () => {
    await dashboard.close();
    await cluster.stop();
  });

  it('three wrong passwords lock the address out (429 + Retry-After, right password too); others still get in', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get(base, '/cluster', WRONG, '127.0.0.1')).status, 401);
    const locked = await get(base, '/cluster', RIGHT, '127.0.0.1');
    assert.equal(locked.status, 429);
    assert.ok(Number(locked.headers['retry-after']) >= 1, String(locked.headers['retry-after']));
    assert.match(locked.body, /too many failed logins/);
    // another client address is not affected
    assert.equal((await get(base, '/cluster', RIGHT, '127.0.0.2')).status, 200);
    // the lockout ends; the right password then gets in and clears the record
    await until(
      async () => (await get(base, '/cluster', RIGHT, '127.0.0.1')).status === 200,
      'lockout over',
      30_000,
    );
    assert.equal(
      (await get(base, '/cluster', WRONG, '127.0.0.1')).status,
      401,
      'a fresh count after a success',
    );
  });

  it('requests without credentials (a browser before its prompt) are not failures', async () => {
    for (let i = 0; i < 6; i++) assert.equal((await get(base, '/cluster', {}, '127.0.0.3')).status, 401);
    assert.equal((await get(base, '/cluster', RIGHT, '127.0.0.3')).status, 200);
  });
});

describe('AuthThrottle', () => {
  it('locks out after maxFailures, doubling per further failure up to the maximum; success clears', () => {
    let now = 1_000_000;
    const t = new AuthThrottle(2, 1000, () => now);
    t.failed('a');
    assert.equal(t.retryAfter('a'), 0);
    t.failed('a');
    assert.equal(t.retryAfter('a'), 1);
    now += 1000;
    assert.equal(t.retryAfter('a'), 0);
    t.failed('a');
    assert.equal(t.retryAfter('a'), 2);
    now += 2000;
    t.failed('a');
    assert.equal(t.retryAfter('a'), 4);
    for (let i = 0; i < 40; i++) t.failed('a');
    assert.equal(t.retryAfter('a'), MAX_LOCKOUT_MS / 1000);
    assert.equal(t.retryAfter('b'), 0);
    t.succeeded('a');
    assert.equal(t.retryAfter('a'), 0);
    assert.equal(t.tracked, 0);
  });
});
