/**
 * Options shared by client and server connections: one interface, one frozen defaults object,
 * one validator (docs/architecture.md §4).
 */
import type { ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { checkInt, checkLogger, withDefaults } from '../options.js';
import type { RemotingCommand } from '../protocol/command.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/frame.js';
import type { RpcHook } from './hooks.js';
import type { Connection } from './connection.js';

/**
 * Handles a request the other side initiated. Return the response (its opaque and response
 * flag are filled in), or `undefined` to answer later with `connection.sendResponse` or not at
 * all. A thrown error or rejected promise is answered with SYSTEM_ERROR.
 */
export type RequestHandler = (
  request: RemotingCommand,
  connection: Connection,
) => Promise<RemotingCommand | undefined> | RemotingCommand | undefined;

export interface ConnectionOptions {
  /** How long `Connection.connect` waits for the TCP handshake. @default 3000 */
  connectTimeoutMs: number;
  /**
   * Largest frame accepted, including the 4-byte length field (Java `com.rocketmq.remoting.frameMaxLength`).
   * @default 16777216
   */
  maxFrameSize: number;
  /**
   * Requests written and awaiting a response on one connection; further requests wait in the
   * queue. Also caps inbound requests being handled at once (reading pauses beyond it).
   * Java's client allows 65535 async requests per client; 4096 per connection keeps memory
   * bounded while saturating a broker.
   * @default 4096
   */
  maxInFlight: number;
  /** Requests waiting for an in-flight slot; beyond it `request()` rejects with BackpressureError. @default 10000 */
  maxQueued: number;
  /** @default silentLogger */
  logger: Logger;
  /** Called before each request is written and after each response arrives. @default [] */
  hooks: RpcHook[];
  /** Handles requests the other side sends (e.g. CHECK_TRANSACTION_STATE). @default undefined: answer REQUEST_CODE_NOT_SUPPORTED */
  requestHandler?: RequestHandler | undefined;
  /**
   * The address this connection is known by (pool key, error messages). @default the socket's
   * `remoteAddress:remotePort`
   */
  remoteAddress?: string | undefined;
  /**
   * Connect with TLS using these `node:tls` options (`Connection.connect` only); the connection is
   * usable once the handshake is done, and a failed handshake is a ConnectError. @default undefined: plain TCP
   */
  tls?: Readonly<TlsConnectOptions> | undefined;
}

export const DEFAULT_CONNECTION_OPTIONS: Readonly<ConnectionOptions> = Object.freeze({
  connectTimeoutMs: 3000,
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  maxInFlight: 4096,
  maxQueued: 10000,
  logger: silentLogger,
  hooks: [],
  requestHandler: undefined,
  remoteAddress: undefined,
  tls: undefined,
});

/** Fills defaults and rejects bad values with InvalidArgumentError. */
export function validateConnectionOptions(options: Partial<ConnectionOptions> = {}): ConnectionOptions {
  const o = withDefaults<ConnectionOptions>(DEFAULT_CONNECTION_OPTIONS, options);
  checkInt('connectTimeoutMs', o.connectTimeoutMs, 1);
  checkInt('maxFrameSize', o.maxFrameSize, 16, 0x7fffffff);
  checkInt('maxInFlight', o.maxInFlight, 1);
  checkInt('maxQueued', o.maxQueued, 0);
  checkLogger('logger', o.logger);
  if (!Array.isArray(o.hooks)) throw new InvalidArgumentError('hooks', 'must be an array of RpcHook');
  if (o.requestHandler !== undefined && typeof o.requestHandler !== 'function') {
    throw new InvalidArgumentError('requestHandler', 'must be a function');
  }
  if (o.tls !== undefined && (o.tls === null || typeof o.tls !== 'object'))
    throw new InvalidArgumentError('tls', 'must be an object of node:tls connect options');
  return o;
}

/** Splits `host:port` (IPv6 as `[::1]:port`). Throws InvalidArgumentError. */
export function parseAddress(address: string): { host: string; port: number } {
  const i = typeof address === 'string' ? address.lastIndexOf(':') : -1;
  const portText = i > 0 ? address.slice(i + 1) : '';
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN;
  if (i <= 0 || !(port >= 1 && port <= 65535)) {
    throw new InvalidArgumentError('address', `expected "host:port", got ${JSON.stringify(address)}`);
  }
  let host = address.slice(0, i);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host, port };
}
