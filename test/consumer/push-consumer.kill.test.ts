import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { eachLine, harness, stream, unique, waitFor } from './helpers.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

const CHILD = fileURLToPath(new URL('./fixtures/consumer-child.js', import.meta.url));

test('a consumer SIGKILLed mid-stream: its queues move to the survivor and every message is consumed at least once', async () => {
  const h = await harness();
  const topic = unique('Kill');
  const group = unique('GK');
  await h.cluster.createTopic(topic, 4);
  const child = spawn(process.execPath, [CHILD, h.cluster.namesrvAddr, group, topic], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const seen = new Set<string>();
    let childCount = 0;
    let ready = false;
    eachLine(child.stdout, (line) => {
      if (line === 'ready') ready = true;
      else if (line.startsWith('msg ')) {
        seen.add(line.slice(4));
        childCount++;
      }
    });
    await waitFor(() => ready, 'the child consumer to start', CHILD_SAFETY_LIMIT_MS);
    const survivor = h.consumer({ consumerGroup: group, consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    survivor.subscribe(topic);
    await survivor.start(async (m: ConsumerMessage) => {
      await new Promise((r) => setTimeout(r, 2));
      seen.add(m.msgId);
    });
    const held = () => [...survivor.internals.table.keys()].filter((k) => k.startsWith(topic)).length;
    await waitFor(() => held() === 4, 'the survivor to hold half the queues');
    const { sent, stop } = stream(h, topic, 10);
    await waitFor(() => childCount >= 50, 'the child to consume part of the stream');
    child.kill('SIGKILL');
    await waitFor(() => held() === 8, 'the survivor to take the dead consumer’s queues');
    await stop();
    await waitFor(() => sent.every((id) => seen.has(id)), 'every message consumed at least once', 20_000);
    assert.ok(sent.length > 0);
  } finally {
    child.kill('SIGKILL');
    await h.close();
  }
});
