import * as assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import {
  COMPRESSED_SYSFLAG,
  compressWith,
  decompressBody,
  loadCompressor,
} from '../../src/protocol/message/compression.js';
import { lz4FrameCompress, lz4FrameDecompress, Lz4FrameError } from '../../src/protocol/message/lz4-frame.js';
import { hash } from 'lz4js/xxh32.js';
import { rng } from '../helpers/rng.js';

before(() => loadCompressor('ZSTD'));

/** Half text, half noise: compressible but not trivially. */
function sample(size: number, seed: number): Buffer {
  const rnd = rng(seed);
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = i % 2 === 0 ? 97 + (i % 13) : Math.floor(rnd() * 256);
  return b;
}

describe('compression types ZLIB, LZ4 and ZSTD', () => {
  it('every type round-trips bodies from 1 byte to past one LZ4 block, with Java’s sysFlag bits', () => {
    assert.equal(COMPRESSED_SYSFLAG.LZ4, 0x101);
    assert.equal(COMPRESSED_SYSFLAG.ZSTD, 0x201);
    assert.equal(COMPRESSED_SYSFLAG.ZLIB, 0x301);
    for (const size of [1, 100, 4096, 70_000, (4 << 20) + 17]) {
      const body = sample(size, size);
      for (const type of ['ZLIB', 'LZ4', 'ZSTD'] as const) {
        const packed = compressWith(type, body, 5);
        assert.deepEqual(decompressBody(packed, COMPRESSED_SYSFLAG[type]), body, `${type} ${size}`);
      }
    }
  });

  it('the same body compressed twice in a row still round-trips (the shared LZ4 match table is reset)', () => {
    const body = sample(20_000, 3);
    for (let i = 0; i < 3; i++) assert.deepEqual(lz4FrameDecompress(lz4FrameCompress(body)), body);
  });

  it('LZ4 frames are shaped like lz4-java’s: independent 4 MiB blocks, header checksum, end mark', () => {
    const frame = lz4FrameCompress(Buffer.from('a'.repeat(1000)));
    assert.equal(frame.readUInt32LE(0), 0x184d2204);
    assert.equal(frame[4], 0x60, 'version 01 + BLOCK_INDEPENDENCE, no checksums');
    assert.equal(frame[5], 0x70, '4 MiB blocks');
    assert.equal(frame.readUInt32LE(frame.length - 4), 0);
  });

  it('an LZ4 frame with block and content checksums and a content size (lz4 CLI style) decodes', () => {
    // Built by hand: one uncompressed block "hello", FLG = version|indep|block sum|size|content sum.
    const hello = Buffer.from('hello');
    const head = Buffer.alloc(14);
    head.writeUInt32LE(0x184d2204, 0);
    head[4] = 0x40 | 0x20 | 0x10 | 0x08 | 0x04;
    head[5] = 0x40;
    head.writeBigUInt64LE(5n, 6);
    const hc = Buffer.from([(hash(0, head, 4, 10) >>> 8) & 0xff]);
    const block = Buffer.alloc(4);
    block.writeUInt32LE(0x80000000 + 5, 0);
    const bsum = Buffer.alloc(4);
    bsum.writeUInt32LE(hash(0, hello, 0, 5), 0);
    const csum = Buffer.alloc(4);
    csum.writeUInt32LE(hash(0, hello, 0, 5), 0);
    const frame = Buffer.concat([head, hc, block, hello, bsum, Buffer.alloc(4), csum]);
    assert.equal(lz4FrameDecompress(frame).toString(), 'hello');
    const bad = Buffer.from(frame);
    bad.writeUInt8((bad.at(-1) as number) ^ 1, bad.length - 1);
    assert.throws(() => lz4FrameDecompress(bad), Lz4FrameError);
  });

  it('corrupt, truncated or oversized LZ4 and ZSTD bodies are ProtocolErrors', () => {
    const body = sample(10_000, 7);
    for (const type of ['LZ4', 'ZSTD'] as const) {
      const packed = Buffer.from(compressWith(type, body, 5));
      assert.throws(
        () => decompressBody(packed.subarray(0, packed.length - 9), COMPRESSED_SYSFLAG[type]),
        ProtocolError,
      );
      assert.throws(
        () => decompressBody(Buffer.from('garbage!garbage!'), COMPRESSED_SYSFLAG[type]),
        ProtocolError,
      );
      assert.throws(() => decompressBody(packed, COMPRESSED_SYSFLAG[type], 100), ProtocolError);
    }
  });
});
