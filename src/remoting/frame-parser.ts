/**
 * Streaming splitter for length-prefixed frames (docs/protocol.md §1.2). It copies only when a
 * frame spans two chunks: a frame wholly inside one chunk is handed out as a subarray view.
 * The length is validated before anything is allocated, so a hostile 2 GiB length costs nothing,
 * and a large frame's memory is taken only as its bytes arrive: an 8-byte prefix announcing
 * 16 MiB reserves nothing before the peer has sent (or proved) anything (docs/security.md §7).
 */
import { ProtocolError } from '../errors.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/frame.js';

const LENGTH_FIELD_SIZE = 4;
/** The serialize-type/header-length word every frame carries after the length. */
const MIN_FRAME_LENGTH = 4;
/**
 * Frames up to this size are copied into one buffer allocated when their length is read (cheap
 * whatever the peer does); larger ones are kept as the chunks that carried them and joined once
 * complete, so what a spanning frame holds never exceeds what arrived.
 */
const PREALLOCATE_MAX = 64 * 1024;

/** Receives one frame without its 4-byte length prefix (what `decodeFrame` takes). */
export type FrameSink = (frame: Buffer) => void;

/**
 * What a length prefix that cannot be a RocketMQ frame says about the peer, when its four bytes
 * read as the start of another protocol's answer: `HTTP` (an HTTP server answering our bytes
 * with 400), a TLS record header (a TLS-only server), or other printable ASCII (a text
 * protocol such as SSH or SMTP, whose greeting comes first).
 */
function foreignProtocol(prefix: Buffer): string | undefined {
  if (prefix.length < LENGTH_FIELD_SIZE) return undefined;
  const text = prefix.toString('latin1', 0, LENGTH_FIELD_SIZE);
  if (text === 'HTTP') return 'it answered like an HTTP server';
  // record type 20..23 (alert, handshake, ...), then version major 3: TLS 1.0 to 1.3
  if (prefix[0]! >= 0x14 && prefix[0]! <= 0x17 && prefix[1] === 0x03)
    return 'it answered like a TLS server; does it need TLS (tls option, --tls)?';
  if (/^[\x20-\x7e]{4}$/.test(text)) return `it sent text starting "${text}"`;
  return undefined;
}

export class FrameParser {
  /** Maximum frame size including the 4-byte length field (Java's `frameMaxLength`). */
  readonly maxFrameSize: number;
  private readonly lengthBytes = Buffer.alloc(LENGTH_FIELD_SIZE);
  private lengthHave = 0;
  /** Destination of a small frame that spans chunks; allocated once its length is known and valid. */
  private partial: Buffer | undefined;
  /** The pieces of a large frame that spans chunks, and the length they will add up to. */
  private parts: Buffer[] | undefined;
  private partsLength = 0;
  private partialHave = 0;

  /** Frames handed out so far: only the first can reveal a peer of another protocol. */
  private frames = 0;

  constructor(
    maxFrameSize: number = DEFAULT_MAX_FRAME_SIZE,
    /** The peer's address, named in the error about a peer that speaks another protocol. */
    private readonly peer?: string,
  ) {
    this.maxFrameSize = maxFrameSize;
  }

  /** Bytes held for an incomplete frame (0 when the stream ends on a frame boundary). */
  get bufferedBytes(): number {
    return this.lengthHave + this.partialHave;
  }

  /** Memory held for an incomplete frame: its buffer when small, else the bytes received. */
  get reservedBytes(): number {
    return this.partial !== undefined ? this.partial.length : this.partialHave;
  }

  /**
   * Feeds one chunk; calls `sink` for every complete frame in order. Throws ProtocolError on
   * an impossible length; the parser is then unusable (the caller closes the connection).
   */
  push(chunk: Buffer, sink: FrameSink): void {
    let offset = 0;
    const end = chunk.length;
    while (offset < end) {
      if (this.parts !== undefined) {
        const take = Math.min(this.partsLength - this.partialHave, end - offset);
        this.parts.push(chunk.subarray(offset, offset + take));
        this.partialHave += take;
        offset += take;
        if (this.partialHave === this.partsLength) {
          const frame = Buffer.concat(this.parts, this.partsLength);
          this.parts = undefined;
          this.partialHave = 0;
          sink(frame);
        }
        continue;
      }
      if (this.partial !== undefined) {
        const need = this.partial.length - this.partialHave;
        const take = Math.min(need, end - offset);
        chunk.copy(this.partial, this.partialHave, offset, offset + take);
        this.partialHave += take;
        offset += take;
        if (take === need) {
          const frame = this.partial;
          this.partial = undefined;
          this.partialHave = 0;
          sink(frame);
        }
        continue;
      }
      let length: number;
      let prefix: Buffer;
      if (this.lengthHave === 0 && end - offset >= LENGTH_FIELD_SIZE) {
        length = chunk.readInt32BE(offset);
        prefix = chunk.subarray(offset, offset + LENGTH_FIELD_SIZE);
        offset += LENGTH_FIELD_SIZE;
      } else {
        const take = Math.min(LENGTH_FIELD_SIZE - this.lengthHave, end - offset);
        chunk.copy(this.lengthBytes, this.lengthHave, offset, offset + take);
        this.lengthHave += take;
        offset += take;
        if (this.lengthHave < LENGTH_FIELD_SIZE) return;
        this.lengthHave = 0;
        length = this.lengthBytes.readInt32BE(0);
        prefix = this.lengthBytes;
      }
      this.checkLength(length, prefix);
      this.frames++;
      if (end - offset >= length) {
        sink(chunk.subarray(offset, offset + length));
        offset += length;
      } else if (length <= PREALLOCATE_MAX) {
        this.partial = Buffer.allocUnsafe(length);
        this.partialHave = 0;
      } else {
        this.parts = [];
        this.partsLength = length;
        this.partialHave = 0;
      }
    }
  }

  private checkLength(length: number, prefix: Buffer): void {
    if (length >= MIN_FRAME_LENGTH && length + LENGTH_FIELD_SIZE <= this.maxFrameSize) return;
    const foreign = this.frames === 0 ? foreignProtocol(prefix) : undefined;
    if (foreign !== undefined)
      throw new ProtocolError(
        `the peer${this.peer === undefined ? '' : ` at ${this.peer}`} does not speak the RocketMQ protocol (${foreign})`,
      );
    if (length < MIN_FRAME_LENGTH) {
      throw new ProtocolError(
        `frame length ${length} is ${length < 0 ? 'negative' : 'shorter than the header word'}`,
      );
    }
    if (length + LENGTH_FIELD_SIZE > this.maxFrameSize) {
      throw new ProtocolError(
        `frame of ${length + LENGTH_FIELD_SIZE} bytes exceeds the maximum frame size ${this.maxFrameSize}`,
      );
    }
  }
}
