/**
 * The long-run figures of `npm run bench:broker` (issue 15): restart time against log size,
 * broker memory with thousands of idle connections, and store throughput while retention
 * deletes commit-log files. Figures only, no assertions. Flags of bench/broker.ts:
 *
 *   --idle-connections N   idle sockets to one broker of the cluster, and its RSS (default 5000, 0 = skip)
 *   --restart-gib 1,10     broker restart over that much log after kill -9 and after a clean stop
 *                          (default 1, '' = skip); plus a full rebuild up to --full-rebuild-gib (1)
 *   --retention-seconds S  store throughput without and during retention deletes (default 5, 0 = skip)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeProperties } from '../src/protocol/message/properties.js';
import { Broker } from '../src/server/broker/broker.js';
import { MessageStore } from '../src/server/store/message-store.js';
import type { MessageToStore } from '../src/server/store/types.js';
import { benchStoreMessage } from './store-message.js';

const FILL = fileURLToPath(new URL('./restart-fill.js', import.meta.url));
const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** Fills a store with `gib` GiB in a child, kills it with SIGKILL mid-write, restarts a broker on it. */
export async function restartBenchmark(gib: number, fullRebuild: boolean): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rmq-restart-'));
  try {
    const fillStarted = Date.now();
    const child = spawn(process.execPath, [FILL, dir, String(Math.round(gib * GIB))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const filled = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n')) resolve(out.trim());
      });
      child.once('exit', (code) => reject(new Error(`fill child exited with ${code}`)));
    });
    await new Promise((r) => setTimeout(r, 3000)); // a trickle goes on past the last checkpoint
    child.kill('SIGKILL');
    await exited;
    const [, , messages] = filled.split(' ');
    console.log(
      `restart ${gib} GiB: filled ${messages} messages in ${((Date.now() - fillStarted) / 1000).toFixed(1)} s, then kill -9`,
    );
    await timedStart(dir, 'after kill -9');
    await timedStart(dir, 'after a clean stop');
    if (fullRebuild) {
      await rm(join(dir, 'checkpoint'));
      await timedStart(dir, 'full rebuild (no checkpoint; what every restart cost before)');
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function timedStart(dir: string, label: string): Promise<void> {
  const broker = new Broker({ storePathRootDir: dir, listenPort: 0 });
  const t0 = process.hrtime.bigint();
  await broker.start();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const r = broker.store.lastRecovery!;
  console.log(
    `  broker start ${label}: ${ms.toFixed(0)} ms, store recovery ${r.ms} ms (log ${(broker.store.maxPhysicalOffset / GIB).toFixed(2)} GiB; ` +
      `validated ${((r.endOffset - r.verifiedFrom) / MIB).toFixed(0)} MiB, re-dispatched ${r.dispatched} records` +
      `${r.fullRebuild ? ', full rebuild' : ''})`,
  );
  await broker.stop();
}

/** Opens `count` idle TCP connections to `address` and prints the broker process RSS. */
export async function idleConnectionsBenchmark(
  address: string,
  count: number,
  rss: () => number,
): Promise<void> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const before = rss();
  const sockets: Socket[] = [];
  try {
    for (let i = 0; i < count; i += 200) {
      const n = Math.min(200, count - i);
      await Promise.all(
        Array.from(
          { length: n },
          () =>
            new Promise<void>((resolve, reject) => {
              const s = connect({ host, port }, () => resolve());
              s.once('error', reject);
              sockets.push(s);
            }),
        ),
      );
    }
    await new Promise((r) => setTimeout(r, 3000));
    const loaded = rss();
    await new Promise((r) => setTimeout(r, 5000));
    const steady = rss();
    const open = sockets.filter((s) => !s.destroyed).length;
    console.log(
      `idle connections: ${open}/${count} open; broker process RSS ${(before / MIB).toFixed(0)} MiB before, ` +
        `${(loaded / MIB).toFixed(0)} MiB after 3 s, ${(steady / MIB).toFixed(0)} MiB after 8 s ` +
        `(${((steady - before) / count / 1024).toFixed(1)} KiB per connection)`,
    );
  } finally {
    for (const s of sockets) s.destroy();
  }
}

/**
 * Store throughput (8 writers of 32 × 1 KiB batches) for `seconds` without retention, then for
 * `seconds` while a retention pass runs every second and deletes expired 16 MiB files, then
 * without again (the disk's write-back of the first window weighs on the later ones).
 */
export async function retentionThroughputBenchmark(seconds: number): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rmq-retention-'));
  const store = await MessageStore.open({
    dataDir: dir,
    segmentSize: 16 * MIB,
    fileReservedTime: 1 / 3600, // one second
    deleteWhen: Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';'),
  });
  const body = Buffer.alloc(1024, 'r');
  let n = 0;
  const batch = (): MessageToStore[] => {
    const queueId = n % 16;
    return Array.from({ length: 32 }, () =>
      benchStoreMessage(
        'RetentionBench',
        queueId,
        body,
        encodeProperties({ UNIQ_KEY: `RB${(n++).toString(16)}` }),
      ),
    );
  };
  const window = async (label: string, during?: () => Promise<number>): Promise<void> => {
    let stop = false;
    let msgs = 0;
    let deleted = 0;
    const cleaner = (async () => {
      while (during !== undefined && !stop) {
        deleted += await during();
        await new Promise((r) => setTimeout(r, 1000));
      }
    })();
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (Date.now() - t0 < seconds * 1000) {
          const r = await store.putMessages(batch());
          if (r[0]?.status === 'PUT_OK') msgs += r.length;
        }
      }),
    );
    stop = true;
    await cleaner;
    const s = (Date.now() - t0) / 1000;
    console.log(
      `  ${label}: ${(msgs / s).toFixed(0)} msgs/s, ${((msgs * 1024) / s / MIB).toFixed(0)} MiB/s of bodies` +
        (during !== undefined ? `, ${deleted} commit-log files deleted` : ''),
    );
  };
  try {
    console.log(`throughput while retention deletes segments (store, 1 KiB messages, ${seconds} s each):`);
    await window('no retention pass');
    await window('retention deleting', async () => (await store.cleanExpiredFiles()).commitLogFilesDeleted);
    await window('no retention pass again');
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}
