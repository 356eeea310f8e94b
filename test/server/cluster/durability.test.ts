/**
 * A broker child process with synchronous flush is SIGKILLed in the middle of sends; restarted on
 * the same data dir, it still has every message it acknowledged.
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { NameServer } from '../../../src/server/namesrv/namesrv.js';
import { decodeBody, Rpc, sendV2Header, uniqueName } from '../broker/rpc-helpers.js';
import { CHILD_SAFETY_LIMIT_MS } from '../../helpers/child-limit.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

function startBroker(
  namesrv: string,
  dataDir: string,
  port: number,
): Promise<{ child: ChildProcess; addr: string }> {
  const child = spawn(
    process.execPath,
    [
      MAIN,
      'broker',
      '--name',
      'broker-k',
      '--namesrv',
      namesrv,
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--flush',
      'sync',
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`broker did not start: ${out} ${err}`));
    }, CHILD_SAFETY_LIMIT_MS);
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ child, addr: m[1] });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`broker exited with ${code}: ${out} ${err}`));
    });
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('a broker killed with SIGKILL during synchronous-flush sends', () => {
  let namesrv: NameServer;
  let dataDir: string;
  const children: ChildProcess[] = [];
  before(async () => {
    namesrv = new NameServer({ listenPort: 0 });
    await namesrv.start();
    dataDir = await mkdtemp(join(tmpdir(), 'rocketmq-ts-durability-'));
  });
  after(async () => {
    for (const c of children) await killed(c);
    await namesrv.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged message after a restart on the same data dir', async () => {
    const first = await startBroker(namesrv.address, dataDir, 0);
    children.push(first.child);
    const port = Number(first.addr.split(':')[1]);
    const topic = uniqueName('Durable');
    const rpc = await Rpc.connect(first.addr);
    const acked = new Set<string>();
    let seq = 0;
    let stop = false;
    const sender = async (): Promise<void> => {
      while (!stop) {
        const body = `durable-${seq++}`;
        try {
          const r = await rpc.request(
            RequestCode.SEND_MESSAGE_V2,
            sendV2Header({ topic, body, queueId: seq % 4 }),
            Buffer.from(body),
            2000,
          );
          if (r.code === ResponseCode.SUCCESS) acked.add(body);
        } catch {
          return; // the broker is gone
        }
      }
    };
    const senders = Array.from({ length: 8 }, () => sender());
    const deadline = Date.now() + CHILD_SAFETY_LIMIT_MS;
    while (acked.size < 150) {
      if (Date.now() > deadline) {
        stop = true;
        rpc.close();
        assert.fail(`only ${acked.size} of 150 sends were acknowledged in ${CHILD_SAFETY_LIMIT_MS} ms`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    first.child.kill('SIGKILL');
    await Promise.all(senders);
    stop = true;
    rpc.close();
    await killed(first.child);

    const second = await startBroker(namesrv.address, dataDir, port);
    children.push(second.child);
    const rpc2 = await Rpc.connect(second.addr);
    try {
      const found = new Set<string>();
      for (let queueId = 0; queueId < 4; queueId++) {
        let offset = 0;
        for (;;) {
          const r = await rpc2.request(RequestCode.PULL_MESSAGE, {
            consumerGroup: 'durability',
            topic,
            queueId,
            queueOffset: offset,
            maxMsgNums: 32,
            sysFlag: 0,
            commitOffset: 0,
            suspendTimeoutMillis: 0,
            subVersion: 0,
          });
          if (r.code !== ResponseCode.SUCCESS) break;
          for (const m of decodeBody(r)) found.add(m.body.toString());
          offset = Number(r.extFields?.nextBeginOffset);
        }
      }
      const lost = [...acked].filter((b) => !found.has(b));
      assert.deepEqual(lost, [], `${lost.length} of ${acked.size} acknowledged messages lost`);
      assert.ok(acked.size >= 150);
    } finally {
      rpc2.close();
    }
    second.child.kill('SIGTERM');
    await new Promise<void>((resolve) => second.child.once('exit', () => resolve()));
  });
});
