/**
 * Message store throughput: puts/s of 128-byte messages from 64 concurrent writers (each waits
 * for its put before the next, like 64 synchronous producers), for flush 'async' and 'sync'.
 * Usage: node build/bench/store.js [seconds=3] [writers=64]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageStore } from '../src/server/store/message-store.js';
import type { MessageToStore } from '../src/server/store/types.js';
import { benchStoreMessage } from './store-message.js';

const seconds = Number(process.argv[2] ?? 3);
const writers = Number(process.argv[3] ?? 64);
const body = Buffer.alloc(128, 0x61);

function msg(i: number): MessageToStore {
  return benchStoreMessage(
    'BenchTopic',
    i % 8,
    body,
    `UNIQ_KEY\u0001${i.toString(16).padStart(32, '0')}\u0002WAIT\u0001true\u0002TAGS\u0001TagA`,
  );
}

async function run(flush: 'async' | 'sync'): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rmq-bench-store-'));
  try {
    const store = await MessageStore.open({ dataDir: dir, flush, segmentSize: 64 * 1024 * 1024 });
    let count = 0;
    let failures = 0;
    const latencies: number[] = [];
    const deadline = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: writers }, async (_, w) => {
        let i = w;
        while (Date.now() < deadline) {
          const t0 = performance.now();
          const r = await store.putMessage(msg(i));
          if (count % 16 === 0) latencies.push(performance.now() - t0);
          if (r.status === 'PUT_OK') count++;
          else failures++;
          i += writers;
        }
      }),
    );
    const start = Date.now();
    await store.close();
    latencies.sort((a, b) => a - b);
    const p = (q: number): string => (latencies[Math.floor(q * (latencies.length - 1))] ?? 0).toFixed(2);
    console.log(
      `flush=${flush.padEnd(5)} writers=${writers} ${(count / seconds).toFixed(0).padStart(7)} puts/s ` +
        `p50=${p(0.5)}ms p99=${p(0.99)}ms failures=${failures} close=${Date.now() - start}ms`,
    );
    const reopenStart = Date.now();
    const reopened = await MessageStore.open({ dataDir: dir, segmentSize: 64 * 1024 * 1024 });
    console.log(`  recovery of ${count} messages: ${Date.now() - reopenStart} ms`);
    await reopened.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await run('async');
await run('sync');
