/**
 * Child process of the restart benchmark (bench/long-run.ts): fills a store at `dir` with 1 KiB
 * messages (16 queues, a UNIQ_KEY each, as producers send them) until the commit log holds
 * `bytes`, prints `filled <bytes> <messages>`, then keeps writing a trickle (one 32 KiB batch
 * per 10 ms, a broker under load but not saturating its disk) until the parent kills it with
 * SIGKILL, so the restart that follows is a crash recovery.
 */
import { encodeProperties } from '../src/protocol/message/properties.js';
import { MessageStore } from '../src/server/store/message-store.js';
import type { MessageToStore } from '../src/server/store/types.js';
import { benchStoreMessage } from './store-message.js';

const [dir, target] = process.argv.slice(2) as [string, string];
const bytes = Number(target);
const store = await MessageStore.open({ dataDir: dir, segmentSize: 64 * 1024 * 1024 });
const body = Buffer.alloc(1024, 'x');
let n = 0;
function batch(size: number): MessageToStore[] {
  const queueId = n % 16;
  return Array.from({ length: size }, () =>
    benchStoreMessage(
      'RestartBench',
      queueId,
      body,
      encodeProperties({ UNIQ_KEY: `7F0000010000${(n++).toString(16).toUpperCase().padStart(20, '0')}` }),
    ),
  );
}
let announced = false;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (!announced) {
      await store.putMessages(batch(32));
      if (!announced && store.maxPhysicalOffset >= bytes) {
        announced = true;
        process.stdout.write(`filled ${store.maxPhysicalOffset} ${n}\n`);
      }
    }
  }),
);
for (;;) {
  await store.putMessages(batch(32));
  await new Promise((r) => setTimeout(r, 10));
}
