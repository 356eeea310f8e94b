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
import { encodeOffsetMsgId, hexOf } from './message-id.js';
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

/** The IP bytes of `h` (4 or 16), parsed once per address text. Shared: read them, never write. */
export function hostIpBytes(h: SocketAddress): Uint8Array {
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
    hostIpBytes(msg.bornHost).length,
    hostIpBytes(msg.storeHost).length,
    magic === MESSAGE_MAGIC_CODE_V2,
  );
}

export function encodeStoredMessage(msg: StoredMessage): Buffer {
  const topic = Buffer.from(msg.topic, 'utf8');
  const magic = magicFor(msg, topic.length);
  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  const props = propertiesBytes(msg);
  const born = hostIpBytes(msg.bornHost);
  const store = hostIpBytes(msg.storeHost);
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

/** Fixed positions of a stored record's leading fields (§6.2), from the record start. */
export const StoredField = Object.freeze({
  BODYCRC: 8,
  QUEUEID: 12,
  FLAG: 16,
  QUEUEOFFSET: 20,
  PHYSICALOFFSET: 28,
  SYSFLAG: 36,
  BORNTIMESTAMP: 40,
  BORNHOST: 48,
});

/**
 * Where the variable fields of one stored record sit, found without decoding them: the consumer's
 * pull path reads only what a handler asks for (consumer/core/message-view.ts). One instance is
 * reused for every record of a body, so scanning allocates nothing.
 */
export class StoredRecordLayout {
  at = 0;
  totalSize = 0;
  magicCode = 0;
  sysFlag = 0;
  /** 4 or 16. */
  bornIpLen = 4;
  storeTimestampAt = 0;
  storeHostAt = 0;
  /** 4 or 16. */
  storeIpLen = 4;
  reconsumeTimesAt = 0;
  preparedAt = 0;
  bodyAt = 0;
  bodyLen = 0;
  topicAt = 0;
  topicLen = 0;
  propertiesAt = 0;
  propertiesLen = 0;
}

function truncated(start: number, at: number, n: number, what: string): ProtocolError {
  return new ProtocolError(
    `stored message at ${start} truncated reading ${what} (need ${n} bytes at +${at - start})`,
  );
}

function checkSafe(buf: Buffer, at: number, start: number, what: string): void {
  // |value| < 2^53 when the high word is within ±2^21 (the one safe value −2^53 + k·2^32 + lo at
  // the very bottom is refused too: no offset or timestamp is negative).
  const hi = buf.readInt32BE(at);
  if (hi <= -0x200000 || hi >= 0x200000)
    throw new ProtocolError(`stored message at ${start} has ${what} that is not a safe integer`);
}

/**
 * Checks the record at `offset` and fills `l` with where its fields are; returns its size. Throws
 * ProtocolError on a bad magic (including the commit-log BLANK magic), a TOTALSIZE that does not
 * fit, any field overrunning the record, or an int64 field beyond 2^53.
 */
export function scanStoredRecord(buf: Buffer, offset: number, l: StoredRecordLayout): number {
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
  const end = offset + totalSize;
  const sysFlag = buf.readInt32BE(offset + StoredField.SYSFLAG);
  const bornIpLen = (sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0 ? 16 : 4;
  const storeIpLen = (sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0 ? 16 : 4;
  const storeTimestampAt = offset + StoredField.BORNHOST + bornIpLen + 4;
  const storeHostAt = storeTimestampAt + 8;
  const reconsumeTimesAt = storeHostAt + storeIpLen + 4;
  const preparedAt = reconsumeTimesAt + 4;
  const bodyLenAt = preparedAt + 8;
  if (bodyLenAt + 4 > end)
    throw truncated(offset, offset + StoredField.BORNHOST, bodyLenAt + 4 - end, 'hosts');
  const bodyLen = buf.readInt32BE(bodyLenAt);
  const bodyAt = bodyLenAt + 4;
  if (bodyLen < 0) throw new ProtocolError(`stored message BODY has negative length ${bodyLen}`);
  if (bodyLen > end - bodyAt) throw truncated(offset, bodyAt, bodyLen, 'BODY');
  const v2 = magicCode === MESSAGE_MAGIC_CODE_V2;
  const topicLenAt = bodyAt + bodyLen;
  if (topicLenAt + (v2 ? 2 : 1) > end) throw truncated(offset, topicLenAt, v2 ? 2 : 1, 'TOPIC length');
  const topicLen = v2 ? buf.readInt16BE(topicLenAt) : buf.readInt8(topicLenAt);
  const topicAt = topicLenAt + (v2 ? 2 : 1);
  if (topicLen < 0) throw new ProtocolError(`stored message TOPIC has negative length ${topicLen}`);
  if (topicLen > end - topicAt) throw truncated(offset, topicAt, topicLen, 'TOPIC');
  const propsLenAt = topicAt + topicLen;
  if (propsLenAt + 2 > end) throw truncated(offset, propsLenAt, 2, 'PROPERTIES length');
  const propertiesLen = buf.readInt16BE(propsLenAt);
  const propertiesAt = propsLenAt + 2;
  if (propertiesLen < 0)
    throw new ProtocolError(`stored message PROPERTIES has negative length ${propertiesLen}`);
  if (propertiesLen > end - propertiesAt) throw truncated(offset, propertiesAt, propertiesLen, 'PROPERTIES');
  if (propertiesAt + propertiesLen !== end) {
    throw new ProtocolError(
      `stored message at ${offset} has ${end - propertiesAt - propertiesLen} bytes past its fields`,
    );
  }
  checkSafe(buf, offset + StoredField.QUEUEOFFSET, offset, 'QUEUEOFFSET');
  checkSafe(buf, offset + StoredField.PHYSICALOFFSET, offset, 'PHYSICALOFFSET');
  checkSafe(buf, offset + StoredField.BORNTIMESTAMP, offset, 'BORNTIMESTAMP');
  checkSafe(buf, storeTimestampAt, offset, 'STORETIMESTAMP');
  checkSafe(buf, preparedAt, offset, 'PREPAREDTRANSACTIONOFFSET');
  l.at = offset;
  l.totalSize = totalSize;
  l.magicCode = magicCode;
  l.sysFlag = sysFlag;
  l.bornIpLen = bornIpLen;
  l.storeTimestampAt = storeTimestampAt;
  l.storeHostAt = storeHostAt;
  l.storeIpLen = storeIpLen;
  l.reconsumeTimesAt = reconsumeTimesAt;
  l.preparedAt = preparedAt;
  l.bodyAt = bodyAt;
  l.bodyLen = bodyLen;
  l.topicAt = topicAt;
  l.topicLen = topicLen;
  l.propertiesAt = propertiesAt;
  l.propertiesLen = propertiesLen;
  return totalSize;
}

/** An int64 field of a scanned record (checked safe by `scanStoredRecord`). */
export function storedInt64(buf: Buffer, at: number): number {
  return readInt64(buf, at) ?? 0;
}

/** The host (IP + port) at `at`, `ipLen` 4 or 16; IPv4 texts are cached (few distinct hosts). */
export function readStoredHost(buf: Buffer, at: number, ipLen: number): SocketAddress {
  const port = buf.readInt32BE(at + ipLen);
  if (ipLen === 16) return { address: formatIp(buf.subarray(at, at + 16)), port };
  const key = buf.readUInt32BE(at);
  let address = ipv4TextCache.get(key);
  if (address === undefined) {
    address = formatIp(buf.subarray(at, at + 4));
    if (ipv4TextCache.size >= HOST_CACHE_LIMIT) ipv4TextCache.clear();
    ipv4TextCache.set(key, address);
  }
  return { address, port };
}

/** offsetMsgId (§3.4) of a scanned record: its store host bytes + port + commit-log offset, in hex. */
export function storedRecordOffsetMsgId(buf: Buffer, l: StoredRecordLayout): string {
  return (
    hexOf(buf, l.storeHostAt, l.storeHostAt + l.storeIpLen + 4) +
    hexOf(buf, l.at + StoredField.PHYSICALOFFSET, l.at + StoredField.PHYSICALOFFSET + 8)
  );
}

const scratch = new StoredRecordLayout();

/**
 * Decodes the record at `offset`. The body is a view into `buf`. Throws ProtocolError on a bad
 * magic (including the commit-log BLANK magic), a TOTALSIZE that does not fit, or any field
 * overrunning the record.
 */
export function decodeStoredMessage(
  buf: Buffer,
  offset = 0,
): { message: DecodedStoredMessage; size: number } {
  const l = scratch;
  const size = scanStoredRecord(buf, offset, l);
  return {
    message: {
      totalSize: l.totalSize,
      magicCode: l.magicCode,
      bodyCRC: buf.readInt32BE(offset + StoredField.BODYCRC),
      queueId: buf.readInt32BE(offset + StoredField.QUEUEID),
      flag: buf.readInt32BE(offset + StoredField.FLAG),
      queueOffset: storedInt64(buf, offset + StoredField.QUEUEOFFSET),
      physicalOffset: storedInt64(buf, offset + StoredField.PHYSICALOFFSET),
      sysFlag: l.sysFlag,
      bornTimestamp: storedInt64(buf, offset + StoredField.BORNTIMESTAMP),
      bornHost: readStoredHost(buf, offset + StoredField.BORNHOST, l.bornIpLen),
      storeTimestamp: storedInt64(buf, l.storeTimestampAt),
      storeHost: readStoredHost(buf, l.storeHostAt, l.storeIpLen),
      reconsumeTimes: buf.readInt32BE(l.reconsumeTimesAt),
      preparedTransactionOffset: storedInt64(buf, l.preparedAt),
      body: buf.subarray(l.bodyAt, l.bodyAt + l.bodyLen),
      topic: buf.toString('utf8', l.topicAt, l.topicAt + l.topicLen),
      properties: buf.toString('utf8', l.propertiesAt, l.propertiesAt + l.propertiesLen),
    },
    size,
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
