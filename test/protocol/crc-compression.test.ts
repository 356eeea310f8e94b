import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deflateSync, inflateSync } from 'node:zlib';
import { ProtocolError } from '../../src/errors.js';
import {
  compressBody,
  decompressBody,
  ZLIB_COMPRESSED_SYSFLAG,
} from '../../src/protocol/message/compression.js';
import { bodyCrc, bodyCrcOfView, crc32, crc32OfView, tableCrc32 } from '../../src/protocol/message/crc32.js';
import {
  MessageSysFlag,
  compressionTypeOf,
  resetTransactionValue,
  transactionValue,
} from '../../src/protocol/message/sysflag.js';

/** Bit-by-bit reference CRC-32, independent of the table-driven implementation. */
function referenceCrc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

describe('crc32', () => {
  it('matches the standard check value and the §14.5 body CRC', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(bodyCrc(Buffer.from('hello')), 907060870);
    assert.equal(crc32(Buffer.alloc(0)), 0);
  });

  it('agrees with a bit-by-bit reference for every length up to 64 and at odd offsets', () => {
    const data = Buffer.alloc(200);
    for (let i = 0; i < data.length; i++) data[i] = (i * 131 + 7) & 0xff;
    for (let len = 0; len <= 64; len++) {
      for (const start of [0, 1, 3]) {
        const view = data.subarray(start, start + len);
        assert.equal(crc32(view), referenceCrc32(view), `len ${len} start ${start}`);
      }
    }
  });

  it('continues from a previous value', () => {
    const a = Buffer.from('hello ');
    const b = Buffer.from('world, longer than eight bytes');
    assert.equal(crc32(b, crc32(a)), crc32(Buffer.concat([a, b])));
  });

  it('read through a DataView of a larger buffer: the reference at every length up to 64, odd offsets and the native lengths', () => {
    const data = Buffer.alloc(5000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 89 + 5) & 0xff;
    // A view that starts inside its ArrayBuffer, as a request body does.
    const outer = Buffer.concat([Buffer.alloc(13), data]).subarray(13);
    const view = new DataView(outer.buffer, outer.byteOffset, outer.byteLength);
    for (const start of [0, 1, 2, 3, 5]) {
      for (let len = 0; len <= 64; len++) {
        const bytes = data.subarray(start, start + len);
        assert.equal(
          crc32OfView(view, start, start + len),
          referenceCrc32(bytes),
          `len ${len} start ${start}`,
        );
      }
      for (const len of [127, 128, 319, 320, 1024]) {
        const bytes = data.subarray(start, start + len);
        assert.equal(
          crc32OfView(view, start, start + len),
          referenceCrc32(bytes),
          `len ${len} start ${start}`,
        );
        assert.equal(
          bodyCrcOfView(view, start, start + len),
          bodyCrc(bytes),
          `body len ${len} start ${start}`,
        );
      }
    }
  });

  it('long inputs (the native path where Node has zlib.crc32) agree with the table loop and the reference, continued or not', () => {
    const data = Buffer.alloc(5000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 197 + 11) & 0xff;
    for (const len of [319, 320, 321, 1024, 4999]) {
      const view = data.subarray(1, 1 + len);
      assert.equal(crc32(view), referenceCrc32(view), `len ${len}`);
      assert.equal(crc32(view), tableCrc32(view), `len ${len}`);
      const head = data.subarray(0, 7);
      assert.equal(crc32(view, crc32(head)), tableCrc32(Buffer.concat([head, view])), `len ${len} continued`);
    }
  });
});

describe('compression (§4.4)', () => {
  const body = Buffer.from('RocketMQ '.repeat(1000));

  it('zlib streams inflate with the standard inflater and match zlib.deflateSync', () => {
    const compressed = compressBody(body, 5);
    assert.equal(compressed[0], 0x78); // zlib header, as Java's Deflater writes
    assert.deepEqual(inflateSync(compressed), body);
    assert.deepEqual(compressed, deflateSync(body, { level: 5 }));
    assert.ok(compressed.length < body.length);
  });

  it('decompresses by sysFlag: zlib type bits or bit 0 alone (pre-4.9.4 clients)', () => {
    const compressed = compressBody(body);
    assert.deepEqual(decompressBody(compressed, ZLIB_COMPRESSED_SYSFLAG), body);
    assert.deepEqual(decompressBody(compressed, MessageSysFlag.COMPRESSED_FLAG), body);
  });

  it('LZ4, ZSTD and corrupt streams are ProtocolErrors', () => {
    const compressed = compressBody(body);
    assert.throws(() => decompressBody(compressed, 1 | MessageSysFlag.COMPRESSION_LZ4_TYPE), ProtocolError);
    assert.throws(() => decompressBody(compressed, 1 | MessageSysFlag.COMPRESSION_ZSTD_TYPE), ProtocolError);
    assert.throws(() => decompressBody(Buffer.from('not zlib'), 1), ProtocolError);
  });

  it('bounds the inflated size', () => {
    assert.throws(() => decompressBody(compressBody(body), 1, 100), ProtocolError);
  });
});

describe('sysFlag helpers (§4.3)', () => {
  it('compression type from bits 8-10', () => {
    assert.equal(compressionTypeOf(0x1), 'ZLIB');
    assert.equal(compressionTypeOf(0x301), 'ZLIB');
    assert.equal(compressionTypeOf(0x101), 'LZ4');
    assert.equal(compressionTypeOf(0x201), 'ZSTD');
    assert.equal(compressionTypeOf(0x401), undefined);
  });
  it('transaction bits', () => {
    assert.equal(transactionValue(0x4 | 0x1), MessageSysFlag.TRANSACTION_PREPARED_TYPE);
    assert.equal(resetTransactionValue(0x4 | 0x1, MessageSysFlag.TRANSACTION_COMMIT_TYPE), 0x9);
  });
});
