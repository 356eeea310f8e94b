/**
 * `rocketmq-ts/remoting`: connections, the connection pool, the remoting server and the
 * stream framing under them. Applications use `Producer` from the root entry instead.
 */
export { Connection, nextOpaque, DEFAULT_CONNECTION_OPTIONS } from './connection.js';
export type { ConnectionOptions, RequestHandler } from './connection.js';
export { parseAddress } from './options.js';
export { ConnectionPool, type ConnectionPoolEvents } from './pool.js';
export { RemotingServer, DEFAULT_REMOTING_SERVER_OPTIONS } from './server.js';
export type { RemotingServerOptions, ServerLimits } from './server.js';
export { FrameParser } from './frame-parser.js';
export type { FrameSink } from './frame-parser.js';
export { FrameWriter, OUTBOX_PRESSURE_BYTES } from './frame-writer.js';
export type { WriteCallback } from './frame-writer.js';
export type { RpcHook } from './hooks.js';
