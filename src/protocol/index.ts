/**
 * `rocketmq-ts/protocol`: the pure codec, for tools and tests that speak the wire format
 * themselves. No I/O here; sockets and framing on a stream are `rocketmq-ts/remoting`.
 */
export * from './codes.js';
export * from './command.js';
export * from './frame.js';
export * from './header-json.js';
export * from './header-binary.js';
export * from './fastjson.js';
export * from './java-string-hash.js';
export * from './perm.js';
export * from './validation.js';
export * from './acl.js';
export * from './message/index.js';
export * from './headers/index.js';
export * from './pop/extra-info.js';
