/** Message-level codecs: properties, sysFlag, compression, ids, batch and stored formats. */
export * from './properties.js';
export * from './sysflag.js';
export * from './compression.js';
export * from './crc32.js';
export * from './message-id.js';
export * from './batch.js';
export * from './stored-message.js';
export * from './inet.js';
export * from './recall-handle.js';
