/**
 * Body compression (docs/protocol.md §4.3–§4.4), the three algorithms of Java's `CompressionType`:
 * - ZLIB: Java's `Deflater(level)` + `DeflaterOutputStream` write a standard zlib stream, which is
 *   exactly what `zlib.deflateSync` produces;
 * - LZ4: an LZ4 frame as lz4-java's `LZ4FrameOutputStream` writes it (lz4-frame.ts); level ignored;
 * - ZSTD: a zstd frame. Reading uses fzstd (pure JS, handles zstd-jni's streamed frames without a
 *   content size); writing uses Node's own zstd when it has one (22.15+), else the
 *   @bokuweb/zstd-wasm build, whose WebAssembly module must be loaded first
 *   (`loadCompressor('ZSTD')`, done by `Producer.start`).
 * lz4js and fzstd are required on the first body that needs them (lazy-dependency.ts), the
 * WebAssembly encoder imported by `loadCompressor`: importing the package loads none of them.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import * as zlib from 'node:zlib';
import type * as Fzstd from 'fzstd';
import { ProtocolError } from '../../errors.js';
import { requireDependency } from '../../lazy-dependency.js';
import { lz4FrameCompress, lz4FrameDecompress } from './lz4-frame.js';
import { CompressionType, MessageSysFlag, compressionTypeOf } from './sysflag.js';

/** Java producer default `rocketmq.message.compressLevel`. */
export const DEFAULT_COMPRESS_LEVEL = 5;

/** zlib-compresses a body; sysFlag gets `COMPRESSED_FLAG | COMPRESSION_ZLIB_TYPE`. */
export function compressBody(body: Uint8Array, level: number = DEFAULT_COMPRESS_LEVEL): Buffer {
  return deflateSync(body, { level });
}

/** The sysFlag bits a producer sets after `compressBody`. */
export const ZLIB_COMPRESSED_SYSFLAG = MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZLIB_TYPE;

/** `COMPRESSED_FLAG` plus the type bits of each algorithm (Java `MessageSysFlag`). */
export const COMPRESSED_SYSFLAG: Readonly<Record<CompressionType, number>> = Object.freeze({
  ZLIB: ZLIB_COMPRESSED_SYSFLAG,
  LZ4: MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_LZ4_TYPE,
  ZSTD: MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZSTD_TYPE,
});

type ZstdSync = (body: Uint8Array, level: number) => Uint8Array;

/** Node's own zstd (22.15+; absent from the Node 20 typings, hence the lookup by name). */
function nodeZstd(): ZstdSync | undefined {
  const z = zlib as unknown as Record<string, unknown>;
  const fn = z['zstdCompressSync'] as ((b: Uint8Array, o: object) => Buffer) | undefined;
  const constants = z['constants'] as Record<string, number>;
  const levelParam = constants['ZSTD_c_compressionLevel'];
  if (typeof fn !== 'function' || levelParam === undefined) return undefined;
  return (body, level) => fn(body, { params: { [levelParam]: level } });
}

let zstdCompressor: ZstdSync | undefined = nodeZstd();
let zstdDecompress: typeof Fzstd.decompress | undefined;
let zstdLoading: Promise<void> | undefined;

/**
 * Makes `compressWith(type)` usable: a no-op but for ZSTD on a Node without zstd, where it loads
 * the WebAssembly encoder once per process.
 */
export function loadCompressor(type: CompressionType): Promise<void> {
  if (type !== CompressionType.ZSTD || zstdCompressor !== undefined) return Promise.resolve();
  zstdLoading ??= import('@bokuweb/zstd-wasm').then(async (m) => {
    await m.init();
    zstdCompressor = (body, level) => m.compress(body, level);
  });
  return zstdLoading;
}

/** Compresses a body with `type` at `level` (LZ4 ignores it, as lz4-java does). */
export function compressWith(type: CompressionType, body: Uint8Array, level: number): Uint8Array {
  switch (type) {
    case CompressionType.ZLIB:
      return compressBody(body, level);
    case CompressionType.LZ4:
      return lz4FrameCompress(body);
    case CompressionType.ZSTD: {
      if (zstdCompressor === undefined)
        throw new ProtocolError('the ZSTD compressor is not loaded (await loadCompressor("ZSTD") first)');
      return zstdCompressor(body, level);
    }
  }
}

/**
 * Decompresses a body by the algorithm in sysFlag bits 8–10 (0 = zlib). Throws ProtocolError on
 * an unknown type or a corrupt stream. `maxOutputLength` bounds the output so a hostile body
 * cannot exhaust memory.
 */
export function decompressBody(body: Uint8Array, sysFlag: number, maxOutputLength?: number): Buffer {
  const type = compressionTypeOf(sysFlag);
  try {
    switch (type) {
      case CompressionType.ZLIB:
        return maxOutputLength === undefined ? inflateSync(body) : inflateSync(body, { maxOutputLength });
      case CompressionType.LZ4:
        return lz4FrameDecompress(body, maxOutputLength);
      case CompressionType.ZSTD: {
        zstdDecompress ??= requireDependency<typeof Fzstd>('fzstd').decompress;
        const out = zstdDecompress(body);
        if (maxOutputLength !== undefined && out.length > maxOutputLength)
          throw new Error(`output exceeds ${maxOutputLength} bytes`);
        return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
      }
      default:
        throw new ProtocolError(
          `unsupported compression type ${(sysFlag & 0x700) >> 8} in sysFlag ${sysFlag}`,
        );
    }
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    throw new ProtocolError(`cannot decompress ${type} message body: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
