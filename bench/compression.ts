/**
 * Compression types side by side on message-like bodies: bytes saved and CPU per KiB to
 * compress and to decompress, for ZLIB (Node's zlib), LZ4 (frame, lz4js blocks) and ZSTD
 * (compress: Node's zstd where present, else @bokuweb/zstd-wasm; decompress: fzstd).
 *
 *   node build/bench/compression.js [--rounds 200]
 *
 * Prints figures; asserts nothing.
 */
import { parseArgs } from 'node:util';
import {
  COMPRESSED_SYSFLAG,
  compressWith,
  decompressBody,
  loadCompressor,
} from '../src/protocol/message/compression.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '200' } } });
const rounds = Number(values.rounds);

/** JSON order events: what RocketMQ bodies usually are, compressible but not trivially. */
function jsonBody(bytes: number, seed: number): Buffer {
  let s = '[';
  let i = seed;
  while (s.length < bytes) {
    i = (i * 1103515245 + 12345) & 0x7fffffff;
    s += `{"orderId":${i},"user":"u${i % 9973}","sku":"SKU-${i % 503}","qty":${i % 7},"price":${(i % 100000) / 100},"status":"${['NEW', 'PAID', 'SHIPPED'][i % 3]}"},`;
  }
  return Buffer.from(s.slice(0, bytes - 1) + ']');
}

function cpuUs(fn: () => void): number {
  const start = process.cpuUsage();
  for (let r = 0; r < rounds; r++) fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / rounds;
}

async function main(): Promise<void> {
  await loadCompressor('ZSTD');
  console.log(`${rounds} rounds per cell; µs/KiB of the uncompressed size, this process's CPU\n`);
  console.log('body      type  level |  saved   ratio | compress µs/KiB  decompress µs/KiB');
  for (const size of [4096, 65536, 1048576]) {
    const body = jsonBody(size, size);
    const kib = size / 1024;
    for (const [type, level] of [
      ['ZLIB', 5],
      ['LZ4', 0],
      ['ZSTD', 3],
      ['ZSTD', 5],
    ] as const) {
      const packed = compressWith(type, body, level);
      const sysFlag = COMPRESSED_SYSFLAG[type];
      // Warm-up, and a sanity check that the figures are of a codec that round-trips.
      cpuUs(() => {
        if (!decompressBody(compressWith(type, body, level), sysFlag).equals(body))
          throw new Error(`${type} corrupt`);
      });
      const c = cpuUs(() => compressWith(type, body, level)) / kib;
      const d = cpuUs(() => decompressBody(packed, sysFlag)) / kib;
      const saved = (1 - packed.length / body.length) * 100;
      console.log(
        `${String(size).padEnd(9)} ${type.padEnd(5)} ${String(level).padStart(5)} | ${saved.toFixed(1).padStart(5)} % ` +
          `${(body.length / packed.length).toFixed(2).padStart(6)}x | ${c.toFixed(2).padStart(15)} ${d.toFixed(2).padStart(18)}`,
      );
    }
  }
}

await main();
