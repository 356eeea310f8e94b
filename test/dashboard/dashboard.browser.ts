/**
 * The dashboard in a real browser: headless Chromium from the system's packages driven by
 * `playwright-core` (no browser download), against an embedded cluster with traffic. Opens every
 * page, checks its figures against the Admin client, waits for live updates, resets an offset
 * through the form, finds a message by key, browses a topic by time, resends and exports dead
 * letters, reads a trace and a POP group, checks the keyboard path, and saves a screenshot of
 * each page under docs/screenshots/ (kept as CI artefacts).
 *
 * Run with `npm run test:browser`. Needs the devDependency `playwright-core` and a Chromium
 * (Debian: `apt-get install chromium`, or set CHROMIUM_PATH); without either every test is
 * skipped with the reason.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Producer } from '../../src/producer/producer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { FAST, unique } from '../consumer/helpers.js';
import {
  dashboardFixture,
  makeDeadLetters,
  popGroupHolding,
  until,
  type DashboardFixture,
} from './fixture.js';

/** The part of playwright-core's API these tests use (the package is optional: no types needed). */
interface Locator {
  allTextContents(): Promise<string[]>;
  textContent(): Promise<string | null>;
  fill(value: string): Promise<void>;
  click(): Promise<void>;
  check(): Promise<void>;
  selectOption(value: string): Promise<unknown>;
  waitFor(options?: { state?: string; timeout?: number }): Promise<void>;
  count(): Promise<number>;
  first(): Locator;
  locator(selector: string): Locator;
}
interface Page {
  goto(url: string): Promise<unknown>;
  locator(selector: string): Locator;
  getByLabel(text: string | RegExp, options?: { exact?: boolean }): Locator;
  getByRole(role: string, options?: { name?: string | RegExp }): Locator;
  screenshot(options: { path: string; fullPage?: boolean }): Promise<unknown>;
  on(event: 'dialog', handler: (d: { accept(): Promise<void>; message(): string }) => void): void;
  on(event: 'pageerror', handler: (e: Error) => void): void;
  keyboard: { press(key: string): Promise<void> };
  waitForEvent(event: 'download'): Promise<Download>;
  evaluate<T>(expression: string): Promise<T>;
}
interface Download {
  suggestedFilename(): string;
  path(): Promise<string | null>;
}
interface Browser {
  newPage(): Promise<Page>;
  close(): Promise<void>;
}
interface PlaywrightCore {
  chromium: {
    launch(options: { executablePath: string; headless: boolean; args: string[] }): Promise<Browser>;
  };
}

const CANDIDATES = [
  'chromium',
  'chromium-headless-shell',
  'chromium-browser',
  'google-chrome',
  '/usr/bin/chromium',
  '/usr/bin/chromium-headless-shell',
  '/usr/lib/chromium/chromium',
  '/usr/lib/chromium/headless_shell',
];

function findChromium(): string | undefined {
  const fromEnv = process.env['CHROMIUM_PATH'];
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  for (const c of CANDIDATES) {
    if (c.startsWith('/')) {
      if (existsSync(c)) return c;
      continue;
    }
    try {
      const path = execFileSync('which', [c], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
      if (path) return path;
    } catch {
      // not on PATH
    }
  }
  return undefined;
}

async function loadPlaywright(): Promise<PlaywrightCore | string> {
  const name = 'playwright-core'; // a variable: tsc must not resolve the optional package
  try {
    return (await import(name)) as PlaywrightCore;
  } catch {
    return 'the devDependency playwright-core is not installed (npm install --save-dev playwright-core)';
  }
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const shots = join(root, 'docs', 'screenshots');

const playwright = await loadPlaywright();
const executablePath = findChromium();
const skip =
  typeof playwright === 'string'
    ? playwright
    : executablePath === undefined
      ? `no Chromium found (tried CHROMIUM_PATH, ${CANDIDATES.join(', ')}); Debian: apt-get install chromium`
      : false;
if (skip) console.log(`# dashboard browser tests skipped: ${skip}`);

describe('dashboard in headless Chromium', { skip }, () => {
  let f: DashboardFixture;
  let browser: Browser;
  let page: Page;
  const pageErrors: Error[] = [];

  before(async () => {
    f = await dashboardFixture({ refreshMs: 300 });
    browser = await (playwright as PlaywrightCore).chromium.launch({
      executablePath: executablePath!,
      headless: true,
      // CI containers run as root, where Chromium's sandbox cannot start
      args: ['--no-sandbox', '--disable-gpu'],
    });
    page = await browser.newPage();
    page.on('pageerror', (e) => pageErrors.push(e));
    page.on('dialog', (d) => void d.accept());
    mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await f?.close();
  });

  async function open(path: string, shot: string): Promise<void> {
    await page.goto(`${f.base}${path}`);
    await page.screenshot({ path: join(shots, `${shot}.png`), fullPage: true });
  }

  async function cells(key: string): Promise<string[]> {
    return (await page.locator(`tr[data-key="${key}"] > *`).allTextContents()).map((c) => c.trim());
  }

  test('cluster page: brokers as the Admin client reports them, live updates arrive, keyboard reaches the content', async () => {
    await open('/cluster', 'cluster');
    for (const b of (await f.admin.clusterInfo()).brokers) {
      const stats = await f.admin.brokerRuntimeStats(b.address);
      assert.deepEqual((await cells(b.address)).slice(0, 5), [
        b.brokerName,
        b.cluster,
        'master',
        b.address,
        stats.version,
      ]);
    }
    // body[data-updates] counts the live updates the page applied (assets.ts); CSP forbids eval
    await page.locator('body[data-updates]:not([data-updates="1"])').waitFor({ timeout: 10_000 });
    assert.match((await page.locator('#live-status').textContent()) ?? '', /updated/);
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate<string>('document.activeElement?.textContent'), 'Skip to content');
    await page.getByRole('button', { name: 'Pause live updates' }).click();
    assert.equal(await page.locator('#live-status').textContent(), 'Live: paused');
    await page.screenshot({ path: join(shots, 'cluster-live.png'), fullPage: true });
  });

  test('topic pages: search, then queues with the min and max offsets of topicStats', async () => {
    await open('/topics', 'topics');
    await page.getByLabel('Topic name contains').fill(f.topic);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator(`a[href="/topic?name=${f.topic}"]`).click();
    await page.locator('#queues table').waitFor();
    await page.screenshot({ path: join(shots, 'topic.png'), fullPage: true });
    for (const q of (await f.admin.topicStats(f.topic)).queues) {
      const row = await cells(`${q.brokerName}/${q.queueId}`);
      assert.deepEqual(row.slice(2, 4), [String(q.minOffset), String(q.maxOffset)]);
    }
  });

  test('consumer group page, then reset an offset through the form', async () => {
    await open('/groups', 'groups');
    await open(`/group?name=${encodeURIComponent(f.group)}`, 'group');
    const progress = await f.admin.consumerProgress(f.group);
    for (const q of progress.queues.filter((x) => x.topic === f.topic)) {
      const row = await cells(`${q.topic}@${q.brokerName}/${q.queueId}`);
      assert.deepEqual(row.slice(3, 6), [String(q.brokerOffset), String(q.consumerOffset), String(q.lag)]);
    }
    await page.getByLabel('Topic', { exact: true }).selectOption(f.topic);
    await page.getByLabel(/^Reset to/).fill('earliest');
    await page.getByLabel(/^Force/).check();
    await page.getByRole('button', { name: 'Reset offsets' }).click(); // the confirm() dialog is accepted
    await page.locator('.notice').waitFor();
    assert.match((await page.locator('.notice').textContent()) ?? '', /reset \(4 queues\)/);
    await page.screenshot({ path: join(shots, 'group-reset.png'), fullPage: true });
    const newOffsets = await page
      .locator('table:has(caption:text-is("New offsets")) tbody tr > td:last-child')
      .allTextContents();
    assert.deepEqual(newOffsets, ['0', '0', '0', '0']);
  });

  test('messages: find one by key, open it, read its body as JSON', async () => {
    const [key, ids] = [...f.sent][5]!;
    await open('/messages', 'messages');
    await page.locator('#key-topic').fill(f.topic);
    await page.locator('#key-key').fill(key);
    await page.getByRole('button', { name: 'Find by key' }).click();
    await page.locator(`tr[data-key="${ids.msgId}"]`).waitFor();
    await page.screenshot({ path: join(shots, 'messages-by-key.png'), fullPage: true });
    await page.locator(`tr[data-key="${ids.msgId}"] a`).click();
    await page.getByRole('link', { name: 'json' }).click();
    assert.match((await page.locator('pre.body').textContent()) ?? '', /"item": "book"/);
    await page.screenshot({ path: join(shots, 'message.png'), fullPage: true });
  });

  test('dead letters: the list with their original topic, resend two checked ones, export all shown as a JSON download', async () => {
    const { topic, group, sent } = await makeDeadLetters(f, 3);
    await open(`/groups?q=${group}`, 'groups-dlq');
    await open(`/group?name=${group}`, 'group-dlq-link');
    await page.getByRole('link', { name: 'Dead letters' }).click();
    await page.locator(`tr[data-key="${sent[0]!.msgId}"]`).waitFor();
    await page.screenshot({ path: join(shots, 'dlq.png'), fullPage: true });
    for (const s of sent) assert.equal((await cells(s.msgId))[2], topic);
    await page.getByLabel(`Select ${sent[0]!.msgId}`).check();
    await page.getByLabel(`Select ${sent[2]!.msgId}`).check();
    await page.getByRole('button', { name: 'Resend to original topic' }).click(); // confirm() accepted
    await page.locator('.notice').waitFor();
    assert.match((await page.locator('.notice').textContent()) ?? '', /^Resent 2 of 2 dead letters/);
    await page.screenshot({ path: join(shots, 'dlq-resent.png'), fullPage: true });
    for (const key of ['dead-0', 'dead-2'])
      await until(async () => (await f.admin.queryMessagesByKey(topic, key)).length === 2, `${key} resent`);
    assert.equal((await f.admin.queryMessagesByKey(topic, 'dead-1')).length, 1, 'the unchecked one stays');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export as JSON' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^dlq-.+\.json$/);
    const file = await download.path();
    assert.ok(file);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as {
      messages: Array<{ msgId: string; body: { utf8: string } }>;
    };
    assert.deepEqual(doc.messages.map((m) => m.msgId).sort(), sent.map((s) => s.msgId).sort());
    assert.ok(doc.messages.every((m) => /^\{"dead":\d\}$/.test(m.body.utf8)));
  });

  test('browse by time: the form with its time zone stated, the messages of the range, a row opens the message', async () => {
    await open('/messages', 'messages-forms');
    await page.getByRole('link', { name: 'Browse a topic by store time' }).click();
    const minute = (ms: number): string => new Date(ms).toISOString().slice(0, 16);
    await page.locator('#time-topic').fill(f.topic);
    // the form names its zone; a zone-less time is UTC, and an offset is honoured
    assert.match((await page.locator('#time-zone-note').textContent()) ?? '', /^Times are UTC unless/);
    await page.getByLabel('Stored from (UTC, or with an offset)').fill(minute(Date.now() - 30 * 60_000));
    const plus8 = `${minute(Date.now() + 2 * 60_000 + 8 * 3_600_000)}+08:00`;
    await page.getByLabel('Stored to (UTC, or with an offset)').fill(plus8);
    await page.getByRole('button', { name: 'Browse' }).click();
    await page.locator('#range-end').waitFor();
    await page.screenshot({ path: join(shots, 'browse-by-time.png'), fullPage: true });
    const ids = [...f.sent.values()].map((s) => s.msgId);
    const rows = await page.locator('#h-results ~ .table-wrap tbody tr').count();
    assert.ok(rows >= ids.length, `every message of the fixture (${rows} rows)`);
    const first = ids[0]!;
    await page.locator(`tr[data-key="${first}"] a`).click();
    await page.getByRole('link', { name: 'Trace page (table and timeline)' }).click();
    assert.match((await page.locator('#no-trace').textContent()) ?? '', /enableMsgTrace: true/);
  });

  test('trace page: the Pub record and a traced group’s SubBefore/SubAfter as rows and bars of the timeline', async () => {
    const topic = unique('BrowserTraceT');
    await f.admin.createTopic({ topic, readQueues: 1, writeQueues: 1, cluster: 'DefaultCluster' });
    const consumer = new PushConsumer({
      namesrvAddr: f.h.cluster.namesrvAddr,
      consumerGroup: unique('BrowserTraceG'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      enableMsgTrace: true,
      ...FAST,
    });
    consumer.subscribe(topic, '*');
    await consumer.start(() => new Promise((r) => setTimeout(r, 20)));
    const producer = new Producer({
      producerGroup: unique('BrowserTraceP'),
      namesrvAddr: f.h.cluster.namesrvAddr,
      enableMsgTrace: true,
    });
    await producer.start();
    try {
      const r = await producer.send({ topic, body: 'traced', keys: 'browser-trace' });
      await until(
        async () => (await f.admin.messageTrace(r.msgId)).some((t) => t.type === 'SubAfter'),
        'the SubAfter record',
      );
      await until(
        async () => (await f.admin.messageTrace(r.msgId)).some((t) => t.type === 'Pub'),
        'the Pub record',
      );
      await open(`/message/trace?id=${r.msgId}&topic=${topic}`, 'trace');
      const pub = await cells(`Pub-${producer.options.producerGroup}-0`);
      assert.equal(pub[2], producer.options.producerGroup);
      assert.equal(pub[6], 'success');
      assert.equal(await page.locator('ol.timeline li .tl-bar').count(), 3);
    } finally {
      await producer.shutdown();
      await consumer.shutdown();
    }
  });

  test('POP group: marked POP in the list, its page shows the messages in flight', async () => {
    const { group, consumer } = await popGroupHolding(f, 4);
    try {
      await until(async () => (await f.admin.consumerProgress(group)).totalInflight === 4, 'four in flight');
      await open(`/groups?q=${group}`, 'groups-pop');
      assert.equal((await cells(group))[1], 'POP');
      await open(`/group?name=${group}`, 'group-pop');
      assert.equal(await page.locator('#pop-inflight').textContent(), '4');
    } finally {
      await consumer.shutdown();
    }
  });

  test('metrics page: reached from the nav, brokers and group diff as /metrics serves them, charted live', async () => {
    await open('/cluster', 'cluster-nav');
    await page.getByRole('link', { name: 'Metrics' }).click();
    await page.locator('#metrics-brokers table').waitFor();
    for (const b of (await f.admin.clusterInfo()).brokers)
      assert.deepEqual((await cells(b.brokerName)).slice(0, 3), [b.brokerName, b.cluster, b.address]);
    const lag = (await f.admin.consumerProgress(f.group, f.topic)).totalLag;
    assert.equal((await cells(`${f.group}@${f.topic}`))[3], String(lag));
    await page.locator('body[data-updates]:not([data-updates="1"])').waitFor({ timeout: 10_000 });
    assert.ok((await page.locator('#metrics-broker-chart svg').count()) === 1);
    assert.ok((await page.locator('#metrics-diff-chart svg').count()) === 1);
    await page.screenshot({ path: join(shots, 'metrics.png'), fullPage: true });
  });

  test('producer health page and a bad-input page render, and no page threw a script error', async () => {
    const stop = f.dashboard.producers.watch(f.h.producer, 'test-producer');
    try {
      await open('/producers', 'producers');
      assert.ok((await page.locator('tr[data-key^="test-producer/"]').count()) >= 2);
    } finally {
      stop();
    }
    await open('/topic?name=NoSuchTopic', 'bad-input');
    assert.match((await page.getByRole('alert').textContent()) ?? '', /does not exist/);
    assert.deepEqual(pageErrors, []);
  });
});
