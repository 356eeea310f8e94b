/**
 * Pure codec targets: the streaming frame parser, both header codecs, the stored-message and
 * batch decoders. Invariants: malformed input throws ProtocolError and nothing else, the parser
 * never holds more than one maximum frame, and intact input decodes to what was encoded.
 */
import { isDeepStrictEqual } from 'node:util';
import { ProtocolError } from '../../src/errors.js';
import { SerializeType, type RemotingCommand } from '../../src/protocol/command.js';
import { decodeFrame, encodeFrameToBuffer } from '../../src/protocol/frame.js';
import { decodeBinaryHeader, encodeBinaryHeader } from '../../src/protocol/header-binary.js';
import { decodeJsonHeaderText, jsonHeaderText } from '../../src/protocol/header-json.js';
import { decodeBatch, encodeBatch, type BatchEntry } from '../../src/protocol/message/batch.js';
import {
  decodeStoredMessages,
  encodeStoredMessage,
  type StoredMessage,
} from '../../src/protocol/message/stored-message.js';
import { FrameParser } from '../../src/remoting/frame-parser.js';
import { randomCommand } from '../commands.js';
import { chunksOf, type Random } from '../random.js';
import { describeError, violated, type FuzzTarget } from '../target.js';

/** Bytes as hex, so inputs are plain JSON (fixtures). */
export interface BytesInput {
  hex: string;
  /** Whether the bytes are an untouched encoding (then they must decode and round-trip). */
  intact: boolean;
}

function expectOnlyProtocolError<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ProtocolError) return undefined;
    violated(`${what} threw ${describeError(err)} instead of ProtocolError`, err);
  }
}

/** A pure target: no setup, one synchronous check per case. */
function pure<I>(
  name: string,
  description: string,
  generate: (r: Random) => I,
  check: (input: I) => void,
): FuzzTarget<I, undefined> {
  return {
    name,
    description,
    caseTimeoutMs: 2000,
    setup: () => Promise.resolve(undefined),
    teardown: () => Promise.resolve(),
    generate: (r) => generate(r),
    run: (input) => {
      check(input);
      return Promise.resolve();
    },
  };
}

function maybeMutated(r: Random, good: Buffer): BytesInput {
  const intact = r.chance(0.25);
  return { hex: (intact ? good : r.mutate(good)).toString('hex'), intact };
}

/** Decoding, encoding and decoding again gives the same command: the codec is stable. */
function checkRoundTrip(what: string, original: RemotingCommand, decoded: RemotingCommand): void {
  for (const k of ['code', 'opaque', 'flag', 'serializeType'] as const) {
    const expect =
      k === 'code' && original.serializeType === SerializeType.ROCKETMQ
        ? (original.code << 16) >> 16
        : original[k] | 0;
    if (decoded[k] !== expect)
      violated(`${what}: ${k} ${decoded[k]} after a round trip, sent ${original[k]}`);
  }
  const again = decodeFrame(encodeFrameToBuffer(decoded).subarray(4));
  if (
    !isDeepStrictEqual(
      { ...again, body: again.body && Buffer.from(again.body) },
      { ...decoded, body: decoded.body && Buffer.from(decoded.body) },
    )
  )
    violated(`${what}: a second round trip changed the command`);
}

interface FrameStreamInput extends BytesInput {
  splits: number[];
  maxFrameSize: number;
  frames: number;
}

export const frameParserTarget = pure<FrameStreamInput>(
  'frame-parser',
  'FrameParser + decodeFrame on streams of random frames, mutated and split at random points',
  (r) => {
    const n = 1 + r.int(4);
    const frames: Buffer[] = [];
    for (let i = 0; i < n; i++) frames.push(encodeFrameToBuffer(randomCommand(r)));
    const stream = Buffer.concat(frames);
    const bytes = maybeMutated(r, stream);
    return {
      ...bytes,
      splits: r.splits(bytes.hex.length / 2),
      maxFrameSize: r.chance(0.5) ? 16 * 1024 * 1024 : 64 + r.int(4096),
      frames: n,
    };
  },
  (input) => {
    const parser = new FrameParser(input.maxFrameSize);
    const decoded: RemotingCommand[] = [];
    let failed = false;
    for (const chunk of chunksOf(Buffer.from(input.hex, 'hex'), input.splits)) {
      const ok = expectOnlyProtocolError('FrameParser.push', () => {
        parser.push(chunk, (frame) => decoded.push(decodeFrame(frame)));
        return true;
      });
      if (ok === undefined) {
        failed = true;
        break;
      }
      if (parser.bufferedBytes > input.maxFrameSize)
        violated(`parser holds ${parser.bufferedBytes} bytes, over the ${input.maxFrameSize} frame limit`);
    }
    if (!input.intact || failed) return;
    if (decoded.length !== input.frames)
      violated(`decoded ${decoded.length} of ${input.frames} intact frames`);
    for (const cmd of decoded) checkRoundTrip('frame', cmd, cmd);
  },
);

export const jsonHeaderTarget = pure<{
  text: string;
  intact: boolean;
  command?: RemotingCommand | undefined;
}>(
  'header-json',
  'decodeJsonHeaderText on encoded headers, mutated as bytes and as text',
  (r) => {
    const cmd = { ...randomCommand(r), serializeType: SerializeType.JSON, body: undefined };
    const text = jsonHeaderText(cmd);
    const roll = r.int(4);
    if (roll === 0) return { text, intact: true, command: cmd };
    if (roll === 1) return { text: r.mutate(Buffer.from(text)).toString('utf8'), intact: false };
    // Text-level: replace a value with another JSON type, or splice tricky text in.
    const at = r.int(text.length);
    const insert = r.pick([
      '"x"',
      '1.5',
      '-',
      'null',
      '[]',
      '{}',
      '"\\u0000"',
      '1e400',
      ',',
      '"',
      r.string(),
    ]);
    return { text: text.slice(0, at) + insert + text.slice(at + r.int(6)), intact: false };
  },
  (input) => {
    const h = expectOnlyProtocolError('decodeJsonHeaderText', () => decodeJsonHeaderText(input.text));
    if (h === undefined) {
      if (input.intact) violated('an intact JSON header was rejected');
      return;
    }
    for (const k of ['code', 'opaque', 'flag', 'version'] as const)
      if (!Number.isInteger(h[k])) violated(`decoded ${k} is ${String(h[k])}, not an integer`);
    for (const [k, v] of Object.entries(h.extFields ?? {}))
      if (typeof v !== 'string') violated(`decoded extFields.${k} is a ${typeof v}, not a string`);
    if (input.intact && input.command !== undefined)
      checkRoundTrip('JSON header', input.command, { ...h, body: undefined });
  },
);

export const binaryHeaderTarget = pure<BytesInput>(
  'header-binary',
  'decodeBinaryHeader (ROCKETMQ serialize type) on encoded headers, mutated',
  (r) => maybeMutated(r, encodeBinaryHeader({ ...randomCommand(r), serializeType: SerializeType.ROCKETMQ })),
  (input) => {
    const h = expectOnlyProtocolError('decodeBinaryHeader', () =>
      decodeBinaryHeader(Buffer.from(input.hex, 'hex')),
    );
    if (h === undefined) {
      if (input.intact) violated('an intact binary header was rejected');
      return;
    }
    if (typeof h.language !== 'string') violated('decoded language is not a string');
    if (input.intact) checkRoundTrip('binary header', { ...h, body: undefined }, { ...h, body: undefined });
  },
);

function randomStored(r: Random): StoredMessage {
  const v6 = r.chance(0.2);
  return {
    queueId: r.int(16),
    flag: r.int32(),
    queueOffset: r.int(1e9),
    physicalOffset: r.int(1e12),
    sysFlag: r.int(8),
    bornTimestamp: 1.7e12 + r.int(1e9),
    bornHost: { address: v6 ? '::1' : '127.0.0.1', port: r.int(65536) },
    storeTimestamp: 1.7e12 + r.int(1e9),
    storeHost: { address: '127.0.0.1', port: r.int(65536) },
    reconsumeTimes: r.int(20),
    preparedTransactionOffset: r.int(1e6),
    body: r.bytes(r.size(1024)),
    topic: r.chance(0.05) ? 'T'.repeat(128 + r.int(64)) : r.pick(['FuzzTopic', 'a', '%RETRY%g']),
    properties: r.chance(0.5) ? 'KEYS\u0001k\u0002UNIQ_KEY\u0001ABC\u0002' : r.string(),
  };
}

export const storedMessageTarget = pure<BytesInput>(
  'stored-message',
  'decodeStoredMessages (PULL / QUERY bodies) on concatenated stored records, mutated',
  (r) =>
    maybeMutated(
      r,
      Buffer.concat(Array.from({ length: 1 + r.int(3) }, () => encodeStoredMessage(randomStored(r)))),
    ),
  (input) => {
    const bytes = Buffer.from(input.hex, 'hex');
    const msgs = expectOnlyProtocolError('decodeStoredMessages', () => decodeStoredMessages(bytes));
    if (msgs === undefined) {
      if (input.intact) violated('intact stored messages were rejected');
      return;
    }
    const total = msgs.reduce((sum, m) => sum + m.totalSize, 0);
    if (total !== bytes.length) violated(`records cover ${total} of ${bytes.length} bytes`);
    if (input.intact && !Buffer.concat(msgs.map((m) => encodeStoredMessage(m))).equals(bytes))
      violated('re-encoding the decoded stored messages changed the bytes');
  },
);

export const batchTarget = pure<BytesInput>(
  'batch',
  'decodeBatch (SEND_BATCH_MESSAGE bodies), mutated',
  (r) => {
    const entries: BatchEntry[] = Array.from({ length: 1 + r.int(4) }, () => ({
      body: r.bytes(r.size(512)),
      flag: r.int32(),
      properties: r.string(),
    }));
    return maybeMutated(r, encodeBatch(entries));
  },
  (input) => {
    const bytes = Buffer.from(input.hex, 'hex');
    const entries = expectOnlyProtocolError('decodeBatch', () => decodeBatch(bytes));
    if (entries === undefined) {
      if (input.intact) violated('an intact batch was rejected');
      return;
    }
    if (input.intact && !encodeBatch(entries).equals(bytes))
      violated('re-encoding the decoded batch changed the bytes');
  },
);

export const CODEC_TARGETS = [
  frameParserTarget,
  jsonHeaderTarget,
  binaryHeaderTarget,
  storedMessageTarget,
  batchTarget,
];
