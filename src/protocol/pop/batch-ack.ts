/**
 * The BATCH_ACK_MESSAGE (200151) body (docs/protocol.md §13.7): Java's `BatchAckMessageRequestBody`
 * as fastjson2 writes it, `{"acks":[BatchAck…],"brokerName":"…"}`. One BatchAck names one checkpoint
 * (`retry@queueId@startOffset@popTime` of the receipt handles it merges) and the acked offsets as a
 * bit set relative to its start offset: bit i set = offset `so + i` acked, written as the base64 of
 * `java.util.BitSet#toByteArray()` (little-endian: byte k bit j is index 8k + j, trailing zero bytes
 * dropped; `BitSetSerializerDeserializer`). Pure: no I/O.
 */
import { ProtocolError } from '../../errors.js';
import type { RetryFlag } from './extra-info.js';

/** One checkpoint's acks (Java `BatchAck`; JSON names in brackets). */
export interface BatchAck {
  /** [c] The group on the wire. */
  consumerGroup: string;
  /** [t] The subscribed topic: the broker derives the retry topic from `retry`. */
  topic: string;
  /** [r] The handles' retry flag. */
  retry: RetryFlag;
  /** [so] The checkpoint's start offset (the handles' ckQueueOffset). */
  startOffset: number;
  /** [q] */
  queueId: number;
  /** [rq] 999 for orderly handles (the broker then commits each offset under the queue's lock). */
  reviveQueueId: number;
  /** [pt] */
  popTime: number;
  /** [it] */
  invisibleTime: number;
  /** [b] Acked offsets minus startOffset, each in [0, 2^31 − 1). */
  indexes: number[];
}

export interface BatchAckBody {
  /** The broker the handles name (Java takes the first handle's). */
  brokerName?: string;
  acks: BatchAck[];
}

/** `BitSet#toByteArray()` of the set bits `indexes`. */
export function bitSetBytes(indexes: readonly number[]): Buffer {
  let max = -1;
  for (const i of indexes) if (i > max) max = i;
  const out = Buffer.alloc(max < 0 ? 0 : (max >> 3) + 1);
  for (const i of indexes) out[i >> 3]! |= 1 << (i & 7);
  return out;
}

/** The set bits of `BitSet.valueOf(bytes)`, ascending. */
export function bitSetIndexes(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let k = 0; k < bytes.length; k++) {
    const b = bytes[k]!;
    if (b === 0) continue;
    for (let j = 0; j < 8; j++) if ((b & (1 << j)) !== 0) out.push(k * 8 + j);
  }
  return out;
}

/** The largest bit index Java's loop acks (`i == Integer.MAX_VALUE` stops it). */
export const MAX_BIT_INDEX = 2 ** 31 - 2;

/** The request body, fields in fastjson2's (alphabetical) order. */
export function encodeBatchAckBody(body: BatchAckBody): Buffer {
  const acks = body.acks.map((a) => {
    for (const i of a.indexes)
      if (!Number.isInteger(i) || i < 0 || i > MAX_BIT_INDEX)
        throw new ProtocolError(`BATCH_ACK: offset index ${i} outside [0, ${MAX_BIT_INDEX}]`);
    return {
      b: bitSetBytes(a.indexes).toString('base64'),
      c: a.consumerGroup,
      it: a.invisibleTime,
      pt: a.popTime,
      q: a.queueId,
      r: a.retry,
      rq: a.reviveQueueId,
      so: a.startOffset,
      t: a.topic,
    };
  });
  return Buffer.from(
    JSON.stringify(body.brokerName === undefined ? { acks } : { acks, brokerName: body.brokerName }),
  );
}

type Json = Record<string, unknown>;

/** A field by its short name or Java's alternate (long) name. */
function field(o: Json, short: string, long: string): unknown {
  return o[short] ?? o[long];
}

function str(o: Json, short: string, long: string, i: number): string {
  const v = field(o, short, long);
  if (typeof v !== 'string') throw new ProtocolError(`BATCH_ACK: acks[${i}].${short} is not a string`);
  return v;
}

function num(o: Json, short: string, long: string, i: number): number {
  const v = field(o, short, long);
  // fastjson2 parses a quoted number into a long field too.
  const n = typeof v === 'string' && /^-?\d{1,19}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n))
    throw new ProtocolError(`BATCH_ACK: acks[${i}].${short} is not an integer`);
  return n;
}

/** Parses a request body; ProtocolError naming what is wrong (the broker answers SYSTEM_ERROR, as Java's decode throws). */
export function decodeBatchAckBody(bytes: Uint8Array): BatchAckBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
  } catch (err) {
    throw new ProtocolError(`BATCH_ACK: body is not JSON: ${(err as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ProtocolError('BATCH_ACK: body is not a JSON object');
  const root = parsed as Json;
  const rawAcks = root['acks'] ?? [];
  if (!Array.isArray(rawAcks)) throw new ProtocolError('BATCH_ACK: acks is not an array');
  const acks = rawAcks.map((raw: unknown, i): BatchAck => {
    if (raw === null || typeof raw !== 'object')
      throw new ProtocolError(`BATCH_ACK: acks[${i}] is not an object`);
    const o = raw as Json;
    const retry = str(o, 'r', 'retry', i);
    if (retry !== '0' && retry !== '1' && retry !== '2')
      throw new ProtocolError(`BATCH_ACK: acks[${i}].r must be 0, 1 or 2, got ${JSON.stringify(retry)}`);
    const b = field(o, 'b', 'bitSet');
    if (b !== undefined && b !== null && (typeof b !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(b)))
      throw new ProtocolError(`BATCH_ACK: acks[${i}].b is not base64`);
    return {
      consumerGroup: str(o, 'c', 'consumerGroup', i),
      topic: str(o, 't', 'topic', i),
      retry,
      startOffset: num(o, 'so', 'startOffset', i),
      queueId: num(o, 'q', 'queueId', i),
      reviveQueueId: num(o, 'rq', 'reviveQueueId', i),
      popTime: num(o, 'pt', 'popTime', i),
      invisibleTime: num(o, 'it', 'invisibleTime', i),
      indexes: typeof b === 'string' ? bitSetIndexes(Buffer.from(b, 'base64')) : [],
    };
  });
  const brokerName = root['brokerName'];
  if (brokerName !== undefined && brokerName !== null && typeof brokerName !== 'string')
    throw new ProtocolError('BATCH_ACK: brokerName is not a string');
  return typeof brokerName === 'string' ? { brokerName, acks } : { acks };
}
