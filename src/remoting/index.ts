export { Connection, nextOpaque, DEFAULT_CONNECTION_OPTIONS } from './connection.js';
export type { ConnectionOptions, RequestHandler } from './connection.js';
export { ConnectionPool } from './pool.js';
export { RemotingServer, DEFAULT_REMOTING_SERVER_OPTIONS } from './server.js';
export type { RemotingServerOptions } from './server.js';
export { FrameParser } from './frame-parser.js';
export type { FrameSink } from './frame-parser.js';
export type { RpcHook } from './hooks.js';
