/**
 * The one lifecycle (client/lifecycle.ts) on all six public classes, the same transitions for
 * each, on an embedded cluster: start twice at once, shutdown during start (same tick, and
 * while the start waits on the network), shutdown twice, start after shutdown, start after a
 * failed start, shutdown without start; and after shutdown() right after start(), no handle
 * keeps the process open (a child process that must end by itself).
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Admin } from '../../src/admin/admin.js';
import { IllegalStateError } from '../../src/errors.js';
import { StartCancelledError } from '../../src/errors/lifecycle.js';
import { Producer } from '../../src/producer/producer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { silentLogger } from '../../src/observability/logger.js';
import { unique, waitFor } from '../consumer/helpers.js';
import { KINDS, type Env, type Kind } from './lifecycle-kinds.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const CHILD = fileURLToPath(new URL('./fixtures/start-shutdown-child.js', import.meta.url));

let cluster: EmbeddedCluster;
let sender: Producer;

before(async () => {
  cluster = await EmbeddedCluster.start({ brokers: 1, logger: silentLogger });
  sender = new Producer({ producerGroup: unique('LifeSender'), namesrvAddr: cluster.namesrvAddr });
  await sender.start();
});

after(async () => {
  await sender.shutdown();
  await cluster.stop();
});

async function env(): Promise<Env> {
  const topic = unique('LifeT');
  await cluster.createTopic(topic, 2);
  return { cluster, topic, group: unique('LifeG'), instanceName: unique('life') };
}

/** Nothing of the group on the brokers (when the class registers there). */
function assertNotListed(kind: Kind, group: string): void {
  if (kind.listed !== undefined) assert.equal(kind.listed(cluster, group), 0, 'the brokers list no client');
}

for (const kind of KINDS) {
  describe(`${kind.name} lifecycle`, () => {
    it('start() twice at once runs one start: the same promise, then RUNNING; start() when running resolves', async () => {
      const e = await env();
      const c = kind.make(e);
      assert.equal(c.state, 'CREATED');
      const first = c.start();
      const second = c.start();
      assert.equal(second, first);
      assert.equal(c.state, 'STARTING');
      await first;
      assert.equal(c.state, 'RUNNING');
      await c.start();
      await c.use(e.topic);
      if (kind.listed !== undefined) await waitFor(() => kind.listed!(cluster, e.group) === 1, 'listed once');
      await c.shutdown();
      assert.equal(c.state, 'STOPPED');
      assertNotListed(kind, e.group);
    });

    it('shutdown() in the same tick as start() cancels the start: StartCancelledError, STOPPED, nothing listed', async () => {
      const e = await env();
      const c = kind.make(e);
      const started = c.start();
      const stopped = c.shutdown();
      assert.equal(c.state, 'STOPPING');
      await assert.rejects(started, StartCancelledError);
      await stopped;
      assert.equal(c.state, 'STOPPED');
      assertNotListed(kind, e.group);
    });

    it('shutdown() twice returns the first call’s promise', async () => {
      const c = kind.make(await env());
      await c.start();
      const first = c.shutdown();
      assert.equal(c.shutdown(), first);
      await first;
      assert.equal(c.shutdown(), first);
      assert.equal(c.state, 'STOPPED');
    });

    it('start() after shutdown() rejects with IllegalStateError', async () => {
      const c = kind.make(await env());
      await c.start();
      await c.shutdown();
      await assert.rejects(c.start(), IllegalStateError);
      assert.equal(c.state, 'STOPPED');
    });

    it('shutdown() without start() resolves and leaves it STOPPED', async () => {
      const c = kind.make(await env());
      await c.shutdown();
      assert.equal(c.state, 'STOPPED');
      await assert.rejects(c.start(), IllegalStateError);
    });

    it(
      'a failed start() goes back to CREATED with nothing listed, and a retry of the same client starts',
      { skip: kind.failingStart === undefined ? 'its start does no I/O and cannot fail' : false },
      async () => {
        const e = await env();
        const { client, repair } = await kind.failingStart!(e);
        await assert.rejects(client.start());
        assert.equal(client.state, 'CREATED');
        await repair();
        assertNotListed(kind, e.group);
        await client.start();
        assert.equal(client.state, 'RUNNING');
        await client.use(e.topic);
        if (kind.listed !== undefined)
          await waitFor(() => kind.listed!(cluster, e.group) === 1, 'listed once');
        await client.shutdown();
        assertNotListed(kind, e.group);
      },
    );

    it(
      'shutdown() while start() waits on the network cancels it at its next await and closes what it opened',
      { skip: kind.startConnects === true ? false : 'its start opens no connection' },
      async () => {
        const e = await env();
        const c = kind.make(e);
        let stopped: Promise<void> | undefined;
        // The first connection of the start: the start is now waiting on the network.
        c.target.on('connect', () => (stopped ??= c.shutdown()));
        const started = c.start();
        await assert.rejects(started, StartCancelledError);
        await stopped;
        assert.equal(c.state, 'STOPPED');
        assertNotListed(kind, e.group);
      },
    );

    it('after shutdown() right after start(), nothing keeps the process open', async () => {
      const e = await env();
      const child = spawn(process.execPath, [CHILD, kind.name, cluster.namesrvAddr, e.topic, e.group], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      // Only a hung child ends this way: then the test fails on the exit code.
      const killer = setTimeout(() => child.kill('SIGKILL'), CHILD_SAFETY_LIMIT_MS);
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      clearTimeout(killer);
      assert.deepEqual(JSON.parse(out), { start: 'StartCancelledError', state: 'STOPPED', handled: 0 }, err);
      assert.equal(code, 0, 'the child ends by itself');
      assertNotListed(kind, e.group);
    });
  });
}

describe('consumers shut down right after start()', () => {
  it('a push consumer shut down in the tick of start() is never called: a later member of the group gets every message', async () => {
    const e = await env();
    const kind = KINDS.find((k) => k.name === 'PushConsumer')!;
    const first = kind.make(e);
    const started = first.start();
    await first.shutdown();
    await assert.rejects(started, StartCancelledError);
    for (let i = 0; i < 6; i++) await sender.send({ topic: e.topic, body: `after-${i}` });
    const got = new Set<string>();
    const second = new PushConsumer({
      consumerGroup: e.group,
      namesrvAddr: cluster.namesrvAddr,
      instanceName: unique('second'),
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      rebalanceInterval: 500,
      logger: silentLogger,
    });
    second.subscribe(e.topic, '*');
    await second.start((m) => void got.add(m.body.toString()));
    try {
      await waitFor(() => got.size === 6, 'the second member to receive all six messages');
      assert.equal(first.handled(), 0, 'the consumer shut down at start never ran its handler');
      assert.equal(kind.listed!(cluster, e.group), 1, 'only the second member is listed');
    } finally {
      await second.shutdown();
    }
  });
});

describe('Admin without start()', () => {
  it('a method called before start() starts the client itself; after shutdown() (or close()) every method rejects', async () => {
    const a = new Admin({ namesrvAddr: [cluster.namesrvAddr], logger: silentLogger });
    assert.equal(a.state, 'CREATED');
    const info = await a.clusterInfo();
    assert.equal(info.brokers.length, 1);
    assert.equal(a.state, 'RUNNING');
    await a.close();
    assert.equal(a.state, 'STOPPED');
    await assert.rejects(a.clusterInfo(), IllegalStateError);
    await assert.rejects(a.topics(), IllegalStateError);
    const never = new Admin({ namesrvAddr: [cluster.namesrvAddr], logger: silentLogger });
    await never.shutdown();
    await assert.rejects(never.clusterInfo(), IllegalStateError, 'also when it was never started');
  });
});
