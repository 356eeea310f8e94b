/**
 * Frame layout (docs/protocol.md §1.2):
 *   int32 length (= 4 + headerLength + bodyLength, excluding itself)
 *   int32 serializeType << 24 | headerLength
 *   header bytes, body bytes
 */
import { ProtocolError } from '../errors.js';
import { SerializeType, type RemotingCommand } from './command.js';
import { decodeBinaryHeader, encodeBinaryHeaderWithReserve } from './header-binary.js';
import { decodeJsonHeaderText, encodeJsonHeaderWithReserve } from './header-json.js';

/** Java's default `com.rocketmq.remoting.frameMaxLength`: whole frame incl. the length field. */
export const DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;
export const FRAME_PREFIX_SIZE = 8;
const MAX_HEADER_LENGTH = 0xffffff;

export interface EncodedFrame {
  /** Length prefix, type word and header, in one buffer. */
  head: Buffer;
  /** The body, untouched: written as a second buffer so it is never copied. */
  body: Uint8Array | undefined;
  /** Total bytes on the wire. */
  size: number;
}

export function encodeFrame(cmd: RemotingCommand): EncodedFrame {
  // The header is written after an 8-byte gap that then receives the prefix: one allocation,
  // no copy.
  const head =
    cmd.serializeType === SerializeType.ROCKETMQ
      ? encodeBinaryHeaderWithReserve(cmd, FRAME_PREFIX_SIZE)
      : encodeJsonHeaderWithReserve(cmd, FRAME_PREFIX_SIZE);
  const headerLength = head.length - FRAME_PREFIX_SIZE;
  if (headerLength > MAX_HEADER_LENGTH) throw new ProtocolError(`header of ${headerLength} bytes too large`);
  // A Uint8Array's `length` is its byteLength; V8 11 inlines `length`, calls a getter for byteLength.
  const bodyLength = cmd.body?.length ?? 0;
  head.writeInt32BE(4 + headerLength + bodyLength, 0);
  head.writeUInt32BE(((cmd.serializeType & 0xff) << 24) | headerLength, 4);
  return { head, body: bodyLength > 0 ? cmd.body : undefined, size: head.length + bodyLength };
}

/** One contiguous buffer with the whole frame; for tests and tools, not the hot path. */
export function encodeFrameToBuffer(cmd: RemotingCommand): Buffer {
  const { head, body } = encodeFrame(cmd);
  return body ? Buffer.concat([head, body]) : head;
}

/**
 * Decodes one frame without its 4-byte length prefix (what Java's frame decoder hands on).
 * The returned body is a view into `frame`, not a copy.
 */
export function decodeFrame(frame: Buffer): RemotingCommand {
  if (frame.length < 4) throw new ProtocolError(`frame of ${frame.length} bytes has no header word`);
  const word = frame.readUInt32BE(0);
  const serializeType = (word >>> 24) & 0xff;
  const headerLength = word & 0xffffff;
  if (headerLength > frame.length - 4) {
    throw new ProtocolError(`header length ${headerLength} past the frame end (${frame.length - 4} bytes)`);
  }
  let header: Omit<RemotingCommand, 'body'>;
  if (serializeType === SerializeType.JSON)
    header = decodeJsonHeaderText(frame.toString('utf8', 4, 4 + headerLength));
  else if (serializeType === SerializeType.ROCKETMQ)
    header = decodeBinaryHeader(frame.subarray(4, 4 + headerLength));
  else throw new ProtocolError(`unknown serialize type ${serializeType}`);
  const cmd = header as RemotingCommand;
  cmd.body = frame.length > 4 + headerLength ? frame.subarray(4 + headerLength) : undefined;
  return cmd;
}
