/**
 * `rocketmq-ts consume` (the built CLI, spawned) against an embedded cluster: the messages it
 * prints, its summary, and that --count leaves the rest to the group.
 */
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ConsumeTracker, javaTimestamp } from '../../src/cli/commands/consume.js';
import { Producer } from '../../src/producer/producer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { uniqueName } from '../server/broker/rpc-helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const run = promisify(execFile);

interface Line {
  topic?: string;
  brokerName?: string;
  queueId?: number;
  queueOffset?: number;
  msgId?: string;
  tags?: string;
  keys?: string[];
  properties?: Record<string, string>;
  body?: string;
  bodyEncoding?: string;
  bornHost?: string;
  summary?: {
    consumed: number;
    perQueue: Record<string, number>;
    latencyP50Ms: number;
    latencyP99Ms: number;
    msgsPerSec: number;
  };
}

function consume(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [MAIN, 'consume', ...args], { timeout: CHILD_SAFETY_LIMIT_MS });
}

function parse(stdout: string): Line[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Line);
}

describe('rocketmq-ts consume against an embedded cluster', () => {
  let cluster: EmbeddedCluster;
  let producer: Producer;
  const topic = uniqueName('CliConsume');
  const sent = new Map<string, { body: string; tags: string }>();

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2 });
    await cluster.createTopic(topic, 4);
    producer = new Producer({ namesrvAddr: cluster.namesrvAddr, producerGroup: uniqueName('CliPG') });
    await producer.start();
    for (let i = 0; i < 40; i++) {
      const body = `cli-body-${i}`;
      const tags = i % 2 === 0 ? 'even' : 'odd';
      const r = await producer.send({ topic, body, tags, keys: [`k${i}`], properties: { n: String(i) } });
      sent.set(r.msgId, { body, tags });
    }
  });

  after(async () => {
    await producer?.shutdown();
    await cluster?.stop();
  });

  it('prints every message from the first offset as JSON with its fields, then a summary', async () => {
    const { stdout } = await consume(
      ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'first', '--count', '40'].concat([
        '--json',
      ]),
    );
    const lines = parse(stdout);
    const messages = lines.filter((l) => l.msgId !== undefined);
    const summary = lines.find((l) => l.summary !== undefined)?.summary;
    assert.equal(messages.length, 40);
    assert.deepEqual(new Set(messages.map((m) => m.msgId)), new Set(sent.keys()));
    for (const m of messages) {
      const want = sent.get(m.msgId!)!;
      assert.equal(m.topic, topic);
      assert.equal(m.body, want.body);
      assert.equal(m.bodyEncoding, 'utf8');
      assert.equal(m.tags, want.tags);
      assert.equal(m.keys?.[0], `k${want.body.slice('cli-body-'.length)}`);
      assert.equal(m.properties?.['n'], want.body.slice('cli-body-'.length));
      assert.match(m.bornHost ?? '', /^127\.0\.0\.1:\d+$/);
    }
    assert.ok(summary, 'a summary line');
    assert.equal(summary.consumed, 40);
    // 4 queues on each of 2 brokers; the producer spread 40 messages over all of them.
    assert.equal(Object.keys(summary.perQueue).length, 8);
    assert.equal(
      Object.values(summary.perQueue).reduce((a, b) => a + b, 0),
      40,
    );
    assert.ok(summary.latencyP50Ms >= 0);
    assert.ok(summary.latencyP99Ms >= summary.latencyP50Ms, 'p99 at least p50');
    assert.ok(summary.msgsPerSec > 0);
  });

  it('a tag expression prints only the matching messages', async () => {
    const { stdout } = await consume(
      ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'first', '--expression', 'odd'].concat([
        '--count',
        '20',
        '--json',
      ]),
    );
    const messages = parse(stdout).filter((l) => l.msgId !== undefined);
    assert.equal(messages.length, 20);
    assert.ok(messages.every((m) => m.tags === 'odd'));
  });

  it('--count stops early and the same group resumes where it stopped, without losing a message', async () => {
    const group = uniqueName('CliCG');
    const args = [
      '--namesrv',
      cluster.namesrvAddr,
      '--topic',
      topic,
      '--group',
      group,
      '--from',
      'first',
      '--json',
    ];
    const firstRun = parse((await consume([...args, '--count', '15'])).stdout).filter((l) => l.msgId);
    assert.equal(firstRun.length, 15);
    const secondRun = parse((await consume([...args, '--duration', '4s'])).stdout).filter((l) => l.msgId);
    const all = new Set([...firstRun, ...secondRun].map((m) => m.msgId));
    assert.deepEqual(all, new Set(sent.keys()), 'both runs together saw every message');
  });

  it('--mode pull (LitePullConsumer) prints the messages and the summary; --count leaves the rest to the group', async () => {
    const group = uniqueName('CliPullCG');
    const args = ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--mode', 'pull', '--group', group];
    const firstLines = parse((await consume([...args, '--from', 'first', '--count', '15', '--json'])).stdout);
    const first = firstLines.filter((l) => l.msgId !== undefined);
    assert.equal(first.length, 15);
    for (const m of first) assert.equal(m.body, sent.get(m.msgId!)?.body);
    const summary = firstLines.find((l) => l.summary !== undefined)?.summary;
    assert.equal(summary?.consumed, 15);
    assert.equal(
      Object.values(summary.perQueue).reduce((a, b) => a + b, 0),
      15,
    );
    // --from first: a queue whose first message was left stores 0, which a 4.9 broker (and ours,
    // answering as 4.9.7) cannot tell from "none"; a LAST_OFFSET member would start at its end.
    const second = parse(
      (await consume([...args, '--from', 'first', '--duration', '4s', '--json'])).stdout,
    ).filter((l) => l.msgId !== undefined);
    const ids = [...first, ...second].map((m) => m.msgId);
    assert.equal(ids.length, 40, 'no message printed by both runs');
    assert.deepEqual(new Set(ids), new Set(sent.keys()), 'both runs together saw every message');
  });

  it('--mode pop (SimpleConsumer) receives and acks every message once', async () => {
    const args = ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--mode', 'pop'];
    const lines = parse(
      (
        await consume([
          ...args,
          '--group',
          uniqueName('CliPopCG'),
          '--count',
          '40',
          '--duration',
          '15s',
          '--json',
        ])
      ).stdout,
    );
    const got = lines.filter((l) => l.msgId !== undefined);
    for (const m of got) assert.equal(m.body, sent.get(m.msgId!)?.body);
    assert.deepEqual(new Set(got.map((m) => m.msgId)), new Set(sent.keys()), 'every message received');
    assert.equal(got.length, 40, 'none twice');
    await assert.rejects(consume([...args, '--sql', 'a > 1']), (err: { stderr: string }) =>
      /--sql/.test(err.stderr),
    );
  });

  it('--mode pull --quiet prints the text summary and a live line', async () => {
    const { stdout, stderr } = await consume(
      ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--mode', 'pull', '--from', 'first'].concat([
        '--quiet',
        '--duration',
        '2500ms',
      ]),
    );
    assert.match(stdout, /^consumed 40 in /m);
    assert.doesNotMatch(stdout, /cli-body-/);
    assert.match(stderr, /consumed \d+ +\d+ msgs\/s/);
  });

  it('--quiet prints no messages, a live line on stderr and the text summary', async () => {
    const { stdout, stderr } = await consume(
      ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'first', '--quiet'].concat([
        '--duration',
        '2500ms',
      ]),
    );
    assert.match(stdout, /^consumed 40 in /m);
    assert.match(stdout, /latency born -> consumed: p50 /);
    assert.doesNotMatch(stdout, /cli-body-/);
    assert.match(stderr, /consumed \d+ +\d+ msgs\/s +lag \d+/);
  });

  it('--orderly consumes every message, each queue in offset order', async () => {
    const { stdout } = await consume(
      ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'first', '--orderly'].concat([
        '--count',
        '40',
        '--json',
      ]),
    );
    const messages = parse(stdout).filter((l) => l.msgId !== undefined);
    assert.deepEqual(new Set(messages.map((m) => m.msgId)), new Set(sent.keys()));
    const perQueue = new Map<string, number[]>();
    for (const m of messages) {
      const key = `${m.brokerName}/${m.queueId}`;
      perQueue.set(key, [...(perQueue.get(key) ?? []), m.queueOffset!]);
    }
    for (const [queue, offsets] of perQueue)
      assert.deepEqual(
        offsets,
        [...offsets].sort((a, b) => a - b),
        `queue ${queue} in order`,
      );
  });

  it('--from timestamp starts a new group at that time: before the messages all, after them none', async () => {
    const base = ['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'timestamp', '--json'];
    const hourAgo = String(Date.now() - 3600_000);
    const all = parse((await consume([...base, '--timestamp', hourAgo, '--count', '40'])).stdout);
    assert.equal(all.filter((l) => l.msgId !== undefined).length, 40);
    const later = String(Date.now() + 2000);
    const none = parse((await consume([...base, '--timestamp', later, '--duration', '3s'])).stdout);
    assert.equal(none.filter((l) => l.msgId !== undefined).length, 0);
    assert.equal(none.find((l) => l.summary !== undefined)?.summary?.consumed, 0);
  });

  it('bad flags are refused with the flag named', async () => {
    await assert.rejects(
      consume(['--namesrv', cluster.namesrvAddr, '--topic', topic, '--from', 'middle']),
      (err: { stderr: string }) => /--from/.test(err.stderr),
    );
    await assert.rejects(
      consume(['--namesrv', cluster.namesrvAddr, '--topic', topic, '--timestamp', '5']),
      (err: { stderr: string }) => /--timestamp/.test(err.stderr),
    );
    await assert.rejects(
      consume(['--namesrv', cluster.namesrvAddr, '--topic', topic, '--mode', 'poll']),
      (err: { stderr: string }) => /--mode/.test(err.stderr),
    );
    await assert.rejects(
      consume(['--namesrv', cluster.namesrvAddr, '--topic', topic, '--mode', 'pull', '--orderly']),
      (err: { stderr: string }) => /--orderly/.test(err.stderr),
    );
  });
});

describe('consume helpers', () => {
  it('javaTimestamp is yyyyMMddHHmmss in local time', () => {
    const d = new Date(2026, 0, 2, 3, 4, 5);
    assert.equal(javaTimestamp(d.getTime()), '20260102030405');
  });

  it('ConsumeTracker counts per queue', () => {
    const t = new ConsumeTracker();
    const queue = { topic: 'T', brokerName: 'b', queueId: 1 };
    t.record({ queue, bornTimestamp: Date.now() });
    t.record({ queue, bornTimestamp: Date.now() });
    t.record({ queue: { ...queue, queueId: 2 }, bornTimestamp: Date.now() });
    const s = t.summary();
    assert.equal(s.consumed, 3);
    assert.deepEqual(s.perQueue, { 'T/b/1': 2, 'T/b/2': 1 });
  });
});
