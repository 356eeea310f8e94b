/** `MessageSysFlag` bits (docs/protocol.md §4.3; identical in 4.9.x and 5.x). */
export const MessageSysFlag = {
  COMPRESSED_FLAG: 0x1,
  MULTI_TAGS_FLAG: 0x2,
  TRANSACTION_NOT_TYPE: 0,
  TRANSACTION_PREPARED_TYPE: 0x4,
  TRANSACTION_COMMIT_TYPE: 0x8,
  TRANSACTION_ROLLBACK_TYPE: 0xc,
  BORNHOST_V6_FLAG: 0x10,
  STOREHOSTADDRESS_V6_FLAG: 0x20,
  NEED_UNWRAP_FLAG: 0x40,
  INNER_BATCH_FLAG: 0x80,
  COMPRESSION_LZ4_TYPE: 0x100,
  COMPRESSION_ZSTD_TYPE: 0x200,
  COMPRESSION_ZLIB_TYPE: 0x300,
  COMPRESSION_TYPE_COMPARATOR: 0x700,
} as const;

/** The transaction bits (`flag & 0xC`, Java `getTransactionValue`). */
export function transactionValue(sysFlag: number): number {
  return sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
}

/** Replaces the transaction bits (Java `resetTransactionValue`). */
export function resetTransactionValue(sysFlag: number, type: number): number {
  return (sysFlag & ~MessageSysFlag.TRANSACTION_ROLLBACK_TYPE) | type;
}

export const CompressionType = { ZLIB: 'ZLIB', LZ4: 'LZ4', ZSTD: 'ZSTD' } as const;
export type CompressionType = (typeof CompressionType)[keyof typeof CompressionType];

/** Compression algorithm from bits 8–10; 0 means zlib (clients before 4.9.4 set only bit 0). */
export function compressionTypeOf(sysFlag: number): CompressionType | undefined {
  switch ((sysFlag & MessageSysFlag.COMPRESSION_TYPE_COMPARATOR) >> 8) {
    case 0:
    case 3:
      return CompressionType.ZLIB;
    case 1:
      return CompressionType.LZ4;
    case 2:
      return CompressionType.ZSTD;
    default:
      return undefined;
  }
}
