/**
 * Stored message format (docs/protocol.md §6.2): the commit-log record, also the body of PULL, QUERY,
 * VIEW responses and CHECK_TRANSACTION_STATE.
 *
 *   int32 TOTALSIZE, int32 MAGICCODE, int32 BODYCRC, int32 QUEUEID, int32 FLAG,
 *   int64 QUEUEOFFSET, int64 PHYSICALOFFSET, int32 SYSFLAG, int64 BORNTIMESTAMP,
 *   BORNHOST (4+4 or 16+4 when sysFlag & 0x10), int64 STORETIMESTAMP,
 *   STOREHOST (4+4 or 16+4 when sysFlag & 0x20), int32 RECONSUMETIMES, int64 PREPAREDTXOFFSET,
 *   int32 bodyLen + body, topicLen (int8; int16 with MAGIC V2) + topic, int16 propsLen + props
 */
import { ProtocolError } from '../../errors.js';
import { bodyCrc } from './crc32.js';
import { formatIp, parseIp } from './inet.js';
import { readInt64, writeInt64 } from './int64.js';
import { encodeOffsetMsgId } from './message-id.js';
import { MessageSysFlag } from './sysflag.js';

export const MESSAGE_MAGIC_CODE = 0xdaa320a7 | 0;
export const MESSAGE_MAGIC_CODE_V2 = 0xdaa320ab | 0;
export const BLANK_MAGIC_CODE = 0xcbd43194 | 0;

/** Longest topic (in UTF-8 bytes) the V1 format's one-byte length can carry. */
export const V1_MAX_TOPIC_BYTES = 127;
export const MAX_PROPERTIES_BYTES = 32767;

export interface SocketAddress {
  /** IPv4 or IPv6 text. */
  address: string;
  port: number;
}

export interface StoredMessage {
  queueId: number;
  flag: number;
  queueOffset: number;
  physicalOffset: number;
  /** The V6 host bits are set by the encoder from the address kinds. */
  sysFlag: number;
  bornTimestamp: number;
  bornHost: SocketAddress;
  storeTimestamp: number;
  storeHost: SocketAddress;
  reconsumeTimes: number;
  preparedTransactionOffset: number;
  /** Stored body (compressed when sysFlag & 1). Decoded messages hold a view into the input. */
  body: Buffer;
  topic: string;
  properties: string;
  /** `CRC32(body) & 0x7FFFFFFF`; computed when absent. */
  bodyCRC?: number;
  /** MESSAGE_MAGIC_CODE unless the topic is longer than 127 bytes (then V2). */
  magicCode?: number;
}

export type DecodedStoredMessage = StoredMessage & { totalSize: number; bodyCRC: number; magicCode: number };

// TOTALSIZE..BORNTIMESTAMP (48) + STORETIMESTAMP (8) + RECONSUMETIMES (4) + PREPARED (8) + bodyLen (4)
const FIXED_WITHOUT_HOSTS = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + 8 + 4 + 8 + 4;

// A broker sees few distinct hosts; parsing the same address text for every message is waste.
const hostCache = new Map<string, Uint8Array>();
const HOST_CACHE_LIMIT = 1024;
const ipv4TextCache = new Map<number, string>();

function hostBytes(h: SocketAddress): Uint8Array {
  let ip = hostCache.get(h.address);
  if (ip === undefined) {
    ip = parseIp(h.address);
    if (hostCache.size >= HOST_CACHE_LIMIT) hostCache.clear();
    hostCache.set(h.address, ip);
  }
  return ip;
}

function propertiesBytes(msg: StoredMessage): Buffer {
  const p = Buffer.from(msg.properties, 'utf8');
  if (p.length > MAX_PROPERTIES_BYTES) {
    throw new ProtocolError(`properties of ${p.length} bytes exceed ${MAX_PROPERTIES_BYTES}`);
  }
  return p;
}

function magicFor(msg: StoredMessage, topicBytes: number): number {
  const magic =
    msg.magicCode ?? (topicBytes > V1_MAX_TOPIC_BYTES ? MESSAGE_MAGIC_CODE_V2 : MESSAGE_MAGIC_CODE);
  if (magic === MESSAGE_MAGIC_CODE && topicBytes > V1_MAX_TOPIC_BYTES) {
    throw new ProtocolError(`topic of ${topicBytes} bytes needs MESSAGE_MAGIC_CODE_V2`);
  }
  if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) {
    throw new ProtocolError(`cannot encode magic code ${magic}`);
  }
  if (topicBytes > 32767) throw new ProtocolError(`topic of ${topicBytes} bytes too long`);
  return magic;
}

function sizeOf(
  bodyLen: number,
  topicLen: number,
  propsLen: number,
  bornIp: number,
  storeIp: number,
  v2: boolean,
) {
  return FIXED_WITHOUT_HOSTS + bornIp + 4 + storeIp + 4 + bodyLen + (v2 ? 2 : 1) + topicLen + 2 + propsLen;
}

/** Bytes `encodeStoredMessage` will produce. */
export function storedMessageSize(msg: StoredMessage): number {
  const topicLen = Buffer.byteLength(msg.topic, 'utf8');
  const magic = magicFor(msg, topicLen);
  return sizeOf(
    msg.body.length,
    topicLen,
    Buffer.byteLength(msg.properties, 'utf8'),
    hostBytes(msg.bornHost).length,
    hostBytes(msg.storeHost).length,
    magic === MESSAGE_MAGIC_CODE_V2,
  );
}

export function encodeStoredMessage(msg: StoredMessage): Buffer {
  const topic = Buffer.from(msg.topic, 'utf8');
  const magic = magicFor(msg, topic.length);
  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  const props = propertiesBytes(msg);
  const born = hostBytes(msg.bornHost);
  const store = hostBytes(msg.storeHost);
  let sysFlag = msg.sysFlag & ~(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG);
  if (born.length === 16) sysFlag |= MessageSysFlag.BORNHOST_V6_FLAG;
  if (store.length === 16) sysFlag |= MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
  const total = sizeOf(msg.body.length, topic.length, props.length, born.length, store.length, v2);
  const b = Buffer.allocUnsafe(total);
  let at = b.writeInt32BE(total, 0);
  at = b.writeInt32BE(magic, at);
  at = b.writeInt32BE((msg.bodyCRC ?? bodyCrc(msg.body)) | 0, at);
  at = b.writeInt32BE(msg.queueId | 0, at);
  at = b.writeInt32BE(msg.flag | 0, at);
  writeInt64(b, msg.queueOffset, at);
  writeInt64(b, msg.physicalOffset, at + 8);
  at = b.writeInt32BE(sysFlag | 0, at + 16);
  writeInt64(b, msg.bornTimestamp, at);
  at += 8;
  b.set(born, at);
  at = b.writeInt32BE(msg.bornHost.port | 0, at + born.length);
  writeInt64(b, msg.storeTimestamp, at);
  at += 8;
  b.set(store, at);
  at = b.writeInt32BE(msg.storeHost.port | 0, at + store.length);
  at = b.writeInt32BE(msg.reconsumeTimes | 0, at);
  writeInt64(b, msg.preparedTransactionOffset, at);
  at = b.writeInt32BE(msg.body.length, at + 8);
  b.set(msg.body, at);
  at += msg.body.length;
  at = v2 ? b.writeInt16BE(topic.length, at) : b.writeInt8(topic.length, at);
  at += topic.copy(b, at);
  at = b.writeInt16BE(props.length, at);
  props.copy(b, at);
  return b;
}

/** A bounds-checked cursor: every read past `end` is a ProtocolError, never a RangeError. */
class Cursor {
  constructor(
    private readonly b: Buffer,
    public at: number,
    private readonly end: number,
    private readonly start: number,
  ) {}
  private need(n: number, what: string): void {
    if (n < 0 || this.end - this.at < n) {
      throw new ProtocolError(
        `stored message at ${this.start} truncated reading ${what} (need ${n} bytes at +${this.at - this.start})`,
      );
    }
  }
  i8(what: string): number {
    this.need(1, what);
    return this.b.readInt8(this.at++);
  }
  i16(what: string): number {
    this.need(2, what);
    const v = this.b.readInt16BE(this.at);
    this.at += 2;
    return v;
  }
  i32(what: string): number {
    this.need(4, what);
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  i64(what: string): number {
    this.need(8, what);
    const v = readInt64(this.b, this.at);
    if (v === undefined) throw new ProtocolError(`stored message ${what} is not a safe integer`);
    this.at += 8;
    return v;
  }
  bytes(n: number, what: string): Buffer {
    if (n < 0) throw new ProtocolError(`stored message ${what} has negative length ${n}`);
    this.need(n, what);
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
  host(v6: boolean, what: string): SocketAddress {
    if (v6) {
      const ip = this.bytes(16, what);
      return { address: formatIp(ip), port: this.i32(`${what} port`) };
    }
    this.need(4, what);
    const key = this.b.readUInt32BE(this.at);
    let address = ipv4TextCache.get(key);
    if (address === undefined) {
      address = formatIp(this.b.subarray(this.at, this.at + 4));
      if (ipv4TextCache.size >= HOST_CACHE_LIMIT) ipv4TextCache.clear();
      ipv4TextCache.set(key, address);
    }
    this.at += 4;
    return { address, port: this.i32(`${what} port`) };
  }
}

/**
 * Decodes the record at `offset`. The body is a view into `buf`. Throws ProtocolError on a bad
 * magic (including the commit-log BLANK magic), a TOTALSIZE that does not fit, or any field
 * overrunning the record.
 */
export function decodeStoredMessage(
  buf: Buffer,
  offset = 0,
): { message: DecodedStoredMessage; size: number } {
  if (offset < 0 || buf.length - offset < 8) {
    throw new ProtocolError(
      `stored message at ${offset} truncated: ${Math.max(0, buf.length - offset)} bytes`,
    );
  }
  const totalSize = buf.readInt32BE(offset);
  const magicCode = buf.readInt32BE(offset + 4);
  if (magicCode !== MESSAGE_MAGIC_CODE && magicCode !== MESSAGE_MAGIC_CODE_V2) {
    const what =
      magicCode === BLANK_MAGIC_CODE ? 'BLANK (end of file)' : `0x${(magicCode >>> 0).toString(16)}`;
    throw new ProtocolError(`stored message at ${offset} has magic code ${what}`);
  }
  if (totalSize < FIXED_WITHOUT_HOSTS || totalSize > buf.length - offset) {
    throw new ProtocolError(
      `stored message at ${offset} has TOTALSIZE ${totalSize} but ${buf.length - offset} bytes remain`,
    );
  }
  const c = new Cursor(buf, offset + 8, offset + totalSize, offset);
  const bodyCRC = c.i32('BODYCRC');
  const queueId = c.i32('QUEUEID');
  const flag = c.i32('FLAG');
  const queueOffset = c.i64('QUEUEOFFSET');
  const physicalOffset = c.i64('PHYSICALOFFSET');
  const sysFlag = c.i32('SYSFLAG');
  const bornTimestamp = c.i64('BORNTIMESTAMP');
  const bornHost = c.host((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0, 'BORNHOST');
  const storeTimestamp = c.i64('STORETIMESTAMP');
  const storeHost = c.host((sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0, 'STOREHOST');
  const reconsumeTimes = c.i32('RECONSUMETIMES');
  const preparedTransactionOffset = c.i64('PREPAREDTRANSACTIONOFFSET');
  const body = c.bytes(c.i32('BODY length'), 'BODY');
  const topicLen = magicCode === MESSAGE_MAGIC_CODE_V2 ? c.i16('TOPIC length') : c.i8('TOPIC length');
  const topic = c.bytes(topicLen, 'TOPIC').toString('utf8');
  const properties = c.bytes(c.i16('PROPERTIES length'), 'PROPERTIES').toString('utf8');
  if (c.at !== offset + totalSize) {
    throw new ProtocolError(
      `stored message at ${offset} has ${offset + totalSize - c.at} bytes past its fields`,
    );
  }
  return {
    message: {
      totalSize,
      magicCode,
      bodyCRC,
      queueId,
      flag,
      queueOffset,
      physicalOffset,
      sysFlag,
      bornTimestamp,
      bornHost,
      storeTimestamp,
      storeHost,
      reconsumeTimes,
      preparedTransactionOffset,
      body,
      topic,
      properties,
    },
    size: totalSize,
  };
}

/** Every record of a PULL / QUERY body, in order. */
export function decodeStoredMessages(buf: Buffer): DecodedStoredMessage[] {
  const out: DecodedStoredMessage[] = [];
  let at = 0;
  while (at < buf.length) {
    const { message, size } = decodeStoredMessage(buf, at);
    out.push(message);
    at += size;
  }
  return out;
}

/** The broker's id for a stored message: store host + commit-log offset (§3.4). */
export function storedMessageOffsetMsgId(msg: StoredMessage): string {
  return encodeOffsetMsgId(msg.storeHost.address, msg.storeHost.port, msg.physicalOffset);
}
