/**
 * An embedded two-broker cluster with traffic (keyed and JSON messages sent, a consumer group
 * consuming them) and a dashboard on it; shared by the HTTP tests and the browser tests.
 */
import { Admin } from '../../src/admin/admin.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { Dashboard } from '../../src/dashboard/server.js';
import type { DashboardOptions } from '../../src/dashboard/options.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import type { SendResult } from '../../src/producer/send-result.js';
import type { EmbeddedClusterOptions } from '../../src/server/cluster.js';
import { FAST, harness, unique, waitFor, type Harness } from '../consumer/helpers.js';

export const SENT = 24;

export interface DashboardFixture {
  h: Harness;
  admin: Admin;
  dashboard: Dashboard;
  base: string;
  topic: string;
  group: string;
  /** msgId and offsetMsgId of every message sent, by key. */
  sent: Map<string, { msgId: string; offsetMsgId: string }>;
  close(): Promise<void>;
}

export async function dashboardFixture(
  options: DashboardOptions = {},
  cluster: Partial<EmbeddedClusterOptions> = {},
): Promise<DashboardFixture> {
  const h = await harness({ brokers: 2, ...cluster });
  const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
  let dashboard: Dashboard | undefined;
  try {
    const topic = unique('DashT');
    const group = unique('DashG');
    await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
    const got = new Set<string>();
    const c = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start((m: ConsumerMessage) => {
      got.add(m.msgId);
    });
    const sent = new Map<string, { msgId: string; offsetMsgId: string }>();
    for (let i = 0; i < SENT; i++) {
      const key = `order-${i}`;
      const r = await h.producer.send({
        topic,
        body: JSON.stringify({ order: i, item: 'book' }),
        keys: key,
        tags: 'TagA',
      });
      sent.set(key, { msgId: r.msgId, offsetMsgId: r.offsetMsgId });
    }
    await waitFor(() => got.size === SENT, 'every message consumed');
    // committed offsets reach the brokers with the consumer's next offset persist
    await until(async () => (await admin.consumerProgress(group)).totalLag === 0, 'lag 0 on the brokers');
    dashboard = new Dashboard({ admin, port: 0, refreshMs: 100, ...options });
    const base = (await dashboard.start()).replace(/\/$/, '');
    const d = dashboard;
    return {
      h,
      admin,
      dashboard: d,
      base,
      topic,
      group,
      sent,
      async close() {
        await d.close();
        await admin.close();
        await h.close();
      },
    };
  } catch (err) {
    await dashboard?.close();
    await admin.close();
    await h.close();
    throw err;
  }
}

/** Polls an async condition (50 ms apart) until true, failing after `timeoutMs`. */
export async function until(cond: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond().catch(() => false))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The CSRF token of a page's first POST form. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error('no CSRF token in the page');
  return m[1]!;
}

/** The text of the table row whose data-key is `key` (tags stripped, cells space-separated). */
export function rowText(html: string, key: string): string | undefined {
  const escaped = key.replace(/&/g, '&amp;').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`<tr data-key="${escaped}">([\\s\\S]*?)</tr>`).exec(html);
  if (!m) return undefined;
  return m[1]!
    .replace(/<\/t[hd]>/g, ' | ')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The cells of a row as text. */
export function rowCells(html: string, key: string): string[] | undefined {
  return rowText(html, key)
    ?.split('|')
    .map((c) => c.trim())
    .filter((c, i, a) => i < a.length - 1 || c !== '');
}

/**
 * A fresh topic and group whose `n` messages all failed for good: a PushConsumer with
 * maxReconsumeTimes 0 throws on each, so the broker moves each to `%DLQ%<group>` at once.
 * Keys `dead-<i>`, tag TagD, user property origin=dlq-test, JSON bodies `{"dead":i}`.
 */
export async function makeDeadLetters(
  f: DashboardFixture,
  n: number,
): Promise<{ topic: string; group: string; sent: SendResult[] }> {
  const topic = unique('DlqT');
  const group = unique('DlqG');
  await f.admin.createTopic({ topic, readQueues: 1, writeQueues: 1, cluster: 'DefaultCluster' });
  const failing = new PushConsumer({
    namesrvAddr: f.h.cluster.namesrvAddr,
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    maxReconsumeTimes: 0,
    ...FAST,
  });
  failing.subscribe(topic, '*');
  await failing.start(() => {
    throw new Error('always fails');
  });
  const sent: SendResult[] = [];
  try {
    for (let i = 0; i < n; i++)
      sent.push(
        await f.h.producer.send({
          topic,
          body: JSON.stringify({ dead: i }),
          keys: `dead-${i}`,
          tags: 'TagD',
          properties: { origin: 'dlq-test' },
        }),
      );
    await until(async () => (await f.admin.deadLetters(group)).total === n, `${n} dead letters`);
  } finally {
    await failing.shutdown();
  }
  return { topic, group, sent };
}

/** A fresh topic with `n` messages and a SimpleConsumer (POP) holding all of them invisible. */
export async function popGroupHolding(
  f: DashboardFixture,
  n: number,
): Promise<{ topic: string; group: string; consumer: SimpleConsumer }> {
  const topic = unique('PopT');
  const group = unique('PopG');
  await f.admin.createTopic({ topic, readQueues: 2, writeQueues: 2, cluster: 'DefaultCluster' });
  for (let i = 0; i < n; i++) await f.h.producer.send({ topic, body: `p${i}` });
  const consumer = new SimpleConsumer({
    namesrvAddr: f.h.cluster.namesrvAddr,
    consumerGroup: group,
    subscriptions: { [topic]: '*' },
    awaitDuration: 300,
    invisibleDuration: 60_000,
    pollNameServerInterval: 500,
  });
  await consumer.start();
  try {
    let held = 0;
    await until(async () => {
      held += (await consumer.receive(16, 60_000)).length;
      return held === n;
    }, `all ${n} received and held`);
  } catch (err) {
    await consumer.shutdown();
    throw err;
  }
  return { topic, group, consumer };
}
