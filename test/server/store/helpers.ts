import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeProperties } from '../../../src/protocol/message/properties.js';
import type { MessageToStore } from '../../../src/server/store/types.js';

export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'rmq-store-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export function message(
  topic: string,
  queueId: number,
  body: string | Buffer,
  props: Record<string, string> = {},
): MessageToStore {
  return {
    topic,
    queueId,
    flag: 0,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000,
    bornHost: { address: '127.0.0.1', port: 50000 },
    storeHost: { address: '127.0.0.1', port: 10911 },
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    properties: encodeProperties(props),
  };
}
