/** Test helpers: raw remoting requests against an embedded cluster. */
import { Connection } from '../../../src/remoting/connection.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { encodeProperties } from '../../../src/protocol/message/properties.js';
import {
  decodeStoredMessages,
  type DecodedStoredMessage,
} from '../../../src/protocol/message/stored-message.js';

export class Rpc {
  private constructor(readonly conn: Connection) {}

  static async connect(addr: string): Promise<Rpc> {
    return new Rpc(await Connection.connect(addr));
  }

  request(
    code: number,
    ext?: Record<string, string | number | boolean>,
    body?: Uint8Array,
    timeoutMs = 5000,
  ): Promise<RemotingCommand> {
    const cmd = createRequest(code, ext, body);
    return this.conn.request(cmd, timeoutMs);
  }

  close(): void {
    this.conn.close();
  }
}

let seq = 0;
export function uniqueName(prefix: string): string {
  seq++;
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${seq}`;
}

export interface SendArgs {
  topic: string;
  body: string | Uint8Array;
  queueId?: number;
  props?: Record<string, string>;
  group?: string;
  sysFlag?: number;
  reconsumeTimes?: number;
  maxReconsumeTimes?: number;
}

/** SEND_MESSAGE_V2 extFields, as a 4.9.7 Java producer writes them. */
export function sendV2Header(a: SendArgs): Record<string, string> {
  const h: Record<string, string> = {
    a: a.group ?? 'PG',
    b: a.topic,
    c: 'TBW102',
    d: '4',
    e: String(a.queueId ?? 0),
    f: String(a.sysFlag ?? 0),
    g: String(Date.now()),
    h: '0',
    i: encodeProperties({ WAIT: 'true', ...(a.props ?? {}) }),
    j: String(a.reconsumeTimes ?? 0),
    k: 'false',
    m: 'false',
  };
  if (a.maxReconsumeTimes !== undefined) h.l = String(a.maxReconsumeTimes);
  return h;
}

/** PULL_MESSAGE extFields as a Java push consumer sends them (queue 0 from offset 0 unless overridden). */
export function pullHeader(
  topic: string,
  group: string,
  sysFlag: number,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    consumerGroup: group,
    topic,
    queueId: '0',
    queueOffset: '0',
    maxMsgNums: '32',
    sysFlag: String(sysFlag),
    commitOffset: '0',
    suspendTimeoutMillis: '0',
    subVersion: '0',
    ...extra,
  };
}

export function bodyOf(b: string | Uint8Array): Buffer {
  return typeof b === 'string' ? Buffer.from(b) : Buffer.from(b);
}

export function decodeBody(cmd: RemotingCommand): DecodedStoredMessage[] {
  return cmd.body ? decodeStoredMessages(Buffer.from(cmd.body)) : [];
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Polls `predicate` (every `intervalMs`) until it returns true; throws `message` once `timeoutMs`
 * has passed. Replaces fixed sleeps before asserting on asynchronous effects.
 */
export async function waitFor(
  predicate: () => boolean | Promise<boolean>,
  timeoutMs: number,
  message = 'condition not met',
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await predicate()) return;
    if (Date.now() >= deadline) throw new Error(`${message} within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
