/**
 * CRC-32 (IEEE 802.3, the polynomial of Java's `java.util.zip.CRC32`), slicing-by-8.
 * Node 20 has no `zlib.crc32`.
 */

const TABLES = ((): Int32Array => {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n]!;
    for (let k = 1; k < 8; k++) {
      c = t[c & 0xff]! ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
})();

/** Unsigned CRC-32 of `bytes`, continuing from `previous` (the result of an earlier call). */
export function crc32(bytes: Uint8Array, previous = 0): number {
  const t = TABLES;
  let crc = ~previous;
  let i = 0;
  const n = bytes.length;
  const end8 = n - (n & 7);
  while (i < end8) {
    const a = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) ^ crc;
    const b = bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24);
    crc =
      t[1792 + (a & 0xff)]! ^
      t[1536 + ((a >>> 8) & 0xff)]! ^
      t[1280 + ((a >>> 16) & 0xff)]! ^
      t[1024 + (a >>> 24)]! ^
      t[768 + (b & 0xff)]! ^
      t[512 + ((b >>> 8) & 0xff)]! ^
      t[256 + ((b >>> 16) & 0xff)]! ^
      t[b >>> 24]!;
    i += 8;
  }
  while (i < n) crc = t[(crc ^ bytes[i++]!) & 0xff]! ^ (crc >>> 8);
  return ~crc >>> 0;
}

/** What the store and the stored format carry: `CRC32(body) & 0x7FFFFFFF` (Java `UtilAll.crc32`). */
export function bodyCrc(bytes: Uint8Array): number {
  return crc32(bytes) & 0x7fffffff;
}
