/**
 * POP state outliving a broker restart and time-based retention (docs/consumers.md §3.5): the
 * embedded broker's checkpoints are durable, and the commit-log files holding an un-acked
 * message stay until it is acked or revived; a consumer killed with messages invisible loses none.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { eachLine, waitFor } from './helpers.js';
import { popScenario, receiveAtLeast } from './simple-consumer-helpers.js';

/** Every hour is a deletion hour: each retention pass may delete. */
const EVERY_HOUR = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';');

test('a broker restarts while 100 messages are invisible: they come back after the invisible time, none lost, and acks after the restart still work', async () => {
  await popScenario({}, 4, async ({ h, topic, consumer }) => {
    const sent = await h.send(topic, 100);
    const c = await consumer();
    const got = await receiveAtLeast(c, 100, 4000, 20_000);
    assert.equal(got.length, 100);
    for (const m of got.slice(0, 10)) await c.ack(m);
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 90);

    await h.cluster.stopBroker('broker-a');
    await h.cluster.startBroker('broker-a');
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 90, 'checkpoints read back');
    // Receipt handles from before the restart are still good.
    for (const m of got.slice(10, 20)) await c.ack(m);

    const expected = got
      .slice(20)
      .map((m) => m.msgId)
      .sort();
    const back: PoppedMessage[] = [];
    for (const end = Date.now() + 30_000; back.length < expected.length && Date.now() < end;) {
      for (const m of await c.receive(32, 30_000)) {
        back.push(m);
        await c.ack(m);
      }
    }
    assert.deepEqual(back.map((m) => m.msgId).sort(), expected, 'exactly the un-acked ones, once each');
    for (const m of back) assert.equal(m.reconsumeTimes, 1);
    assert.deepEqual(got.map((m) => m.msgId).sort(), [...sent].sort());
    assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
  });
});

test('retention keeps the commit-log file of a long-invisible message until it is delivered again', async () => {
  await popScenario(
    {
      brokerOptions: {
        reviveInterval: 100,
        // 64 KiB files that expire at once: only a pin keeps a file.
        mappedFileSizeCommitLog: 64 * 1024,
        fileReservedTime: 1e-9,
        deleteWhen: EVERY_HOUR,
      },
    },
    1,
    async ({ h, topic, consumer }) => {
      const broker = h.cluster.broker('broker-a');
      for (let i = 0; i < 120; i++)
        await h.producer.send({ topic, body: `m${i}`.padEnd(2000, '.'), keys: `k${i}` });
      const c = await consumer();
      const invisibleMs = 3000;
      const got = await receiveAtLeast(c, 120, invisibleMs, 20_000);
      assert.equal(got.length, 120);
      // The group consumed everything but the first message: only its checkpoint needs file 0.
      const held = got.find((m) => m.queueOffset === 0)!;
      assert.ok(held, 'offset 0 was received');
      for (const m of got) if (m !== held) await c.ack(m);

      const kept = await broker.store.cleanExpiredFiles();
      assert.equal(kept.commitLogFilesDeleted, 0, 'the file holding the un-acked message stays');
      assert.deepEqual(kept.pinnedBy, [`${topic}@pop`]);
      assert.equal(broker.store.getMinOffset(topic, 0), 0);

      const back = await receiveAtLeast(c, 1, 30_000, 20_000);
      assert.equal(back.length, 1);
      assert.equal(back[0]!.msgId, held.msgId);
      assert.equal(back[0]!.body.toString(), held.body.toString(), 'the body is intact');
      assert.equal(back[0]!.reconsumeTimes, 1);
      await c.ack(back[0]!);

      const freed = await broker.store.cleanExpiredFiles();
      assert.ok(freed.commitLogFilesDeleted > 0, 'once revived and acked, the old files go');
    },
  );
});

const CHILD = fileURLToPath(new URL('./fixtures/simple-consumer-child.js', import.meta.url));

test('a SimpleConsumer SIGKILLed holding 1,000 invisible messages: all 1,000 go to the survivor after the invisible time, none lost', async () => {
  await popScenario({}, 4, async ({ h, topic, group, consumer }) => {
    const sent = await h.send(topic, 1000);
    const child = spawn(process.execPath, [CHILD, h.cluster.namesrvAddr, group, topic, '1000', '5000'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const held = new Set<string>();
      let holding = false;
      eachLine(child.stdout, (line) => {
        if (line === 'holding') holding = true;
        else if (line.startsWith('held ')) held.add(line.slice(5));
      });
      await waitFor(() => holding, 'the child to hold 1,000 messages', 60_000);
      assert.equal(held.size, 1000);
      assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 1000);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;

      const survivor = await consumer();
      const seen = new Map<string, number>();
      for (const end = Date.now() + 60_000; seen.size < 1000 && Date.now() < end;)
        for (const m of await survivor.receive(32, 30_000)) {
          assert.ok(m.reconsumeTimes >= 1, 'only redeliveries: the child held them all');
          seen.set(m.msgId, (seen.get(m.msgId) ?? 0) + 1);
          await survivor.ack(m);
        }
      assert.deepEqual([...seen.keys()].sort(), [...sent].sort(), 'every message, none lost');
      assert.ok(
        [...seen.values()].every((n) => n === 1),
        'each once',
      );
      assert.equal(h.cluster.broker('broker-a').pop.state.inflight, 0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
