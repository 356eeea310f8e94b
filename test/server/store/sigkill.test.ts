import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { MessageStore } from '../../../src/server/store/message-store.js';
import { message, tempDir } from './helpers.js';

const writer = fileURLToPath(new URL('./fixtures/sigkill-writer.js', import.meta.url));

for (const flush of ['sync', 'async'] as const) {
  test(`a store process killed with SIGKILL mid-write loses no acknowledged message (flush ${flush})`, async () => {
    const tmp = await tempDir();
    try {
      const child = spawn(process.execPath, [writer, tmp.dir, flush], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const acked: Array<{ queueId: number; offset: number; i: number }> = [];
      let buffered = '';
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString();
          const lines = buffered.split('\n');
          buffered = lines.pop()!;
          for (const line of lines) {
            const [q, o, i] = line.split(' ').map(Number) as [number, number, number];
            acked.push({ queueId: q, offset: o, i });
          }
          if (acked.length >= 1000 && !child.killed) {
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', () => resolve());
      });
      await exited;
      assert.ok(acked.length >= 1000, `child acknowledged only ${acked.length} puts`);

      const store = await MessageStore.open({ dataDir: tmp.dir, segmentSize: 64 * 1024 });
      try {
        for (const a of acked) {
          const r = await store.getMessages('Kill', a.queueId, a.offset, 1);
          assert.equal(r.status, 'FOUND', `acknowledged ${a.queueId}/${a.offset} missing`);
          const body = decodeStoredMessage(r.messages[0]!).message.body.toString();
          assert.equal(body.replace(/#+$/, ''), `payload-${a.i}`);
        }
        const more = await store.putMessage(message('Kill', 0, 'after'));
        assert.equal(more.status, 'PUT_OK');
      } finally {
        await store.close();
      }
    } finally {
      await tmp.remove();
    }
  });
}
