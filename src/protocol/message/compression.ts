/**
 * Body compression (docs/protocol.md §4.4). Java's `Deflater(level)` + `DeflaterOutputStream` write a
 * standard zlib stream, which is exactly what `zlib.deflateSync` produces.
 */
import { deflateSync, inflateSync } from 'node:zlib';
import { ProtocolError } from '../../errors.js';
import { CompressionType, MessageSysFlag, compressionTypeOf } from './sysflag.js';

/** Java producer default `rocketmq.message.compressLevel`. */
export const DEFAULT_COMPRESS_LEVEL = 5;

/** zlib-compresses a body; sysFlag gets `COMPRESSED_FLAG | COMPRESSION_ZLIB_TYPE`. */
export function compressBody(body: Uint8Array, level: number = DEFAULT_COMPRESS_LEVEL): Buffer {
  return deflateSync(body, { level });
}

/** The sysFlag bits a producer sets after `compressBody`. */
export const ZLIB_COMPRESSED_SYSFLAG = MessageSysFlag.COMPRESSED_FLAG | MessageSysFlag.COMPRESSION_ZLIB_TYPE;

/**
 * Inflates a body by the algorithm in sysFlag bits 8–10. LZ4 and ZSTD are not supported (no
 * runtime dependencies) and throw ProtocolError, as does a corrupt stream. `maxOutputLength`
 * bounds the inflated size so a hostile body cannot exhaust memory.
 */
export function decompressBody(body: Uint8Array, sysFlag: number, maxOutputLength?: number): Buffer {
  const type = compressionTypeOf(sysFlag);
  if (type !== CompressionType.ZLIB) {
    throw new ProtocolError(
      `unsupported compression type ${type ?? (sysFlag & 0x700) >> 8} in sysFlag ${sysFlag}`,
    );
  }
  try {
    return maxOutputLength === undefined ? inflateSync(body) : inflateSync(body, { maxOutputLength });
  } catch (err) {
    throw new ProtocolError(`cannot inflate message body: ${(err as Error).message}`, { cause: err });
  }
}
