/**
 * Start-up scan of the commit log. Every record is validated (magic, size bounds, decodability,
 * body CRC, its own physical offset); the first record that fails ends the valid log, and
 * everything after it — a torn or corrupt tail — is cut off by the caller.
 */
import { bodyCrc } from '../../protocol/message/crc32.js';
import { readInt64 } from '../../protocol/message/int64.js';
import { MessageSysFlag } from '../../protocol/message/sysflag.js';
import {
  BLANK_MAGIC_CODE,
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
} from '../../protocol/message/stored-message.js';
import type { Segment, SegmentedFile } from './segmented-file.js';

/** Bytes kept free at the end of a segment for the BLANK record (Java END_FILE_MIN_BLANK_LENGTH). */
export const END_FILE_MIN_BLANK_LENGTH = 8;
/** Smallest stored record: 84 fixed bytes with IPv4 hosts, body length, 1-byte topic length, properties length. */
export const MIN_RECORD_SIZE = 84 + 4 + 1 + 2;

const READ_CHUNK = 4 * 1024 * 1024;

/** What recovery needs from a record to rebuild the consume queue and key index. */
export interface RecordIndexFields {
  topic: string;
  queueId: number;
  queueOffset: number;
  physicalOffset: number;
  storeTimestamp: number;
  properties: string;
}

/**
 * Validates the record in `buf` (exactly `size` bytes) field by field, as the codec would, and
 * checks its body CRC — without building a full message object, since recovery reads every
 * record of the log. Returns a reason when the record is not valid.
 */
export function parseRecord(buf: Buffer, size: number): RecordIndexFields | string {
  const magic = buf.readInt32BE(4);
  const bodyCRC = buf.readInt32BE(8);
  const queueId = buf.readInt32BE(12);
  const queueOffset = readInt64(buf, 20);
  const physicalOffset = readInt64(buf, 28);
  const sysFlag = buf.readInt32BE(36);
  if (queueOffset === undefined || queueOffset < 0 || physicalOffset === undefined || queueId < 0) {
    return 'bad offsets in record header';
  }
  let at = 48 + ((sysFlag & MessageSysFlag.BORNHOST_V6_FLAG) !== 0 ? 20 : 8);
  if (at + 8 > size) return 'record too short for its hosts';
  const storeTimestamp = readInt64(buf, at) ?? 0;
  at += 8;
  at += ((sysFlag & MessageSysFlag.STOREHOSTADDRESS_V6_FLAG) !== 0 ? 20 : 8) + 4 + 8;
  if (at + 4 > size) return 'record too short for its hosts';
  const bodyLen = buf.readInt32BE(at);
  at += 4;
  if (bodyLen < 0 || at + bodyLen > size) return `bad body length ${bodyLen}`;
  const bodyStart = at;
  at += bodyLen;
  const v2 = magic === MESSAGE_MAGIC_CODE_V2;
  if (at + (v2 ? 2 : 1) > size) return 'record too short for the topic length';
  const topicLen = v2 ? buf.readInt16BE(at) : buf.readInt8(at);
  at += v2 ? 2 : 1;
  if (topicLen <= 0 || at + topicLen + 2 > size) return `bad topic length ${topicLen}`;
  const topic = buf.toString('utf8', at, at + topicLen);
  at += topicLen;
  const propsLen = buf.readInt16BE(at);
  at += 2;
  if (propsLen < 0 || at + propsLen !== size) return `bad properties length ${propsLen}`;
  if (bodyCrc(buf.subarray(bodyStart, bodyStart + bodyLen)) !== bodyCRC) return 'body CRC mismatch';
  const properties = propsLen === 0 ? '' : buf.toString('utf8', at, at + propsLen);
  return { topic, queueId, queueOffset, physicalOffset, storeTimestamp, properties };
}

export interface ScanResult {
  /** Physical offset just past the last valid record (or blank). */
  endOffset: number;
  records: number;
  /** Why the scan stopped before the end of the files; undefined for a clean end. */
  stopReason: string | undefined;
}

/**
 * Calls `onRecord` for each valid record in order from `from` (a record boundary: the start of
 * a segment or the end of a record). `onRecord` may reject a record (returning a reason), which
 * ends the valid log there too.
 */
export async function scanCommitLog(
  log: SegmentedFile,
  from: number,
  onRecord: (
    message: RecordIndexFields,
    physicalOffset: number,
    size: number,
  ) => string | undefined | Promise<string | undefined>,
): Promise<ScanResult> {
  const segmentSize = log.segmentSize;
  const segments = log.list().filter((s) => s.start + segmentSize > from);
  let end = Math.max(from, log.minOffset);
  let records = 0;
  for (const seg of segments) {
    if (seg.start > end) {
      return { endOffset: end, records, stopReason: `records end at ${end}, before segment ${seg.start}` };
    }
    const reader = new SegmentReader(log, seg);
    let pos = end - seg.start;
    for (;;) {
      if (pos === seg.size) {
        // Clean end of the data in the newest segment (files are cut to their data, not preallocated).
        return { endOffset: seg.start + pos, records, stopReason: undefined };
      }
      if (seg.size - pos < 8) return stop(seg.start + pos, `${seg.size - pos} stray bytes`);
      const head = await reader.bytes(pos, 8);
      if (head.length < 8) return stop(seg.start + pos, 'file shorter than its size');
      const size = head.readInt32BE(0);
      const magic = head.readInt32BE(4);
      if (magic === BLANK_MAGIC_CODE) {
        if (size !== segmentSize - pos || size < END_FILE_MIN_BLANK_LENGTH) {
          return stop(
            seg.start + pos,
            `blank record of size ${size} at ${pos} of a ${segmentSize}-byte segment`,
          );
        }
        if (seg.size < segmentSize) await log.fillSegment(seg.start);
        end = seg.start + segmentSize;
        break;
      }
      if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) {
        return stop(
          seg.start + pos,
          size === 0 && magic === 0 ? 'zeroes' : `bad magic 0x${(magic >>> 0).toString(16)}`,
        );
      }
      if (size < MIN_RECORD_SIZE || pos + size + END_FILE_MIN_BLANK_LENGTH > segmentSize) {
        return stop(seg.start + pos, `bad record size ${size}`);
      }
      if (pos + size > seg.size) return stop(seg.start + pos, `record of ${size} bytes truncated`);
      const buf = await reader.bytes(pos, size);
      if (buf.length < size) return stop(seg.start + pos, 'file shorter than its size');
      const message = parseRecord(buf, size);
      if (typeof message === 'string') return stop(seg.start + pos, message);
      if (message.physicalOffset !== seg.start + pos) {
        return stop(seg.start + pos, `record claims physical offset ${message.physicalOffset}`);
      }
      const verdict = onRecord(message, seg.start + pos, size);
      const rejected = verdict instanceof Promise ? await verdict : verdict;
      if (rejected !== undefined) return stop(seg.start + pos, rejected);
      records++;
      pos += size;
      end = seg.start + pos;
    }
  }
  return { endOffset: end, records, stopReason: undefined };

  function stop(at: number, reason: string): ScanResult {
    return { endOffset: at, records, stopReason: reason };
  }
}

/** Reads a segment in large chunks and hands out views. */
class SegmentReader {
  private buf: Buffer = Buffer.alloc(0);
  private bufStart = 0;
  constructor(
    private readonly log: SegmentedFile,
    private readonly seg: Segment,
  ) {}

  async bytes(pos: number, n: number): Promise<Buffer> {
    if (pos < this.bufStart || pos + n > this.bufStart + this.buf.length) {
      const len = Math.min(Math.max(READ_CHUNK, n), this.seg.size - pos);
      this.buf = await this.log.read(this.seg.start + pos, len);
      this.bufStart = pos;
    }
    const at = pos - this.bufStart;
    return this.buf.subarray(at, at + n);
  }
}
