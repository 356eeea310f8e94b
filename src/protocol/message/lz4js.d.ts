// lz4js ships no types: only the block functions and xxHash32 are used (see lz4-frame.ts).
declare module 'lz4js' {
  export function compressBound(n: number): number;
  export function compressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    hashTable: Uint32Array,
  ): number;
  export function decompressBlock(
    src: Uint8Array,
    dst: Uint8Array,
    sIndex: number,
    sLength: number,
    dIndex: number,
  ): number;
}
declare module 'lz4js/xxh32.js' {
  export function hash(seed: number, src: Uint8Array, index: number, len: number): number;
}
