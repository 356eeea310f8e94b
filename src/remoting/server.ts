/**
 * A remoting server (NameServer and Broker side): accepts connections and dispatches requests
 * by code, answering like Java's `NettyRemotingAbstract` (docs/protocol.md §1.5).
 */
import { EventEmitter } from 'node:events';
import * as net from 'node:net';
import { AccessDeniedError, IllegalStateError, InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { ResponseCode } from '../protocol/codes.js';
import { createResponse, FLAG_ONEWAY, SerializeType, type RemotingCommand } from '../protocol/command.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../protocol/frame.js';
import { Connection } from './connection.js';
import { runAfterHooks, runBeforeHooks, type RpcHook } from './hooks.js';
import {
  checkInt,
  checkLogger,
  checkObject,
  checkPositive,
  checkString,
  rejectUnknownKeys,
  withDefaults,
} from '../options.js';
import { OUTBOX_PRESSURE_BYTES } from './frame-writer.js';
import { validateConnectionOptions, type RequestHandler } from './options.js';
import { acceptTls, resolveServerTls, type ServerTls, type ServerTlsOptions } from './tls-server.js';

export interface RemotingServerOptions {
  /** Interface to bind. Keep loopback unless you mean to expose the server. @default '127.0.0.1' */
  host: string;
  /** TCP port; 0 picks a free one (see `listen()`'s result). @default 0 */
  port: number;
  /** Largest accepted frame including the length field. @default 16777216 */
  maxFrameSize: number;
  /** Inbound requests handled at once per connection before reading pauses. @default 4096 */
  maxInFlight: number;
  /** Server-initiated requests waiting per connection. @default 10000 */
  maxQueued: number;
  /**
   * Connections accepted at once; more are closed on accept (Java sets no limit; the process's
   * file descriptors bound it). @default 10000
   */
  maxConnections: number;
  /**
   * A connection with nothing read or written for this long is closed (Java
   * `serverChannelMaxIdleTimeSeconds`, ALL_IDLE); 0 never. Fractions are allowed. @default 120
   */
  serverChannelMaxIdleTimeSeconds: number;
  /**
   * A TLS server closes a socket that has not finished its handshake this long after accept,
   * its first byte included: a peer that connects and sends nothing, or stalls mid-handshake,
   * holds a `maxConnections` slot no longer than this (Netty's `SslHandler` handshake timeout;
   * the idle timer starts only once frames can flow). @default 10000
   */
  tlsHandshakeTimeoutMs: number;
  /**
   * Unsent response bytes per connection above which the server stops reading that connection's
   * requests until the client reads (a client that never reads cannot grow our memory).
   * @default 4194304 (4 MiB)
   */
  writeBufferHighWaterMark: number;
  /** @default silentLogger */
  logger: Logger;
  /** Called before dispatch (`beforeRequest`) and before each response is written (`afterResponse`). @default [] */
  hooks: RpcHook[];
  /**
   * TLS (Java `tls.server.mode` and certificate settings). A `beforeRequest` hook may refuse a
   * request by throwing AccessDeniedError: it is answered with its response code and remark.
   * @default undefined: plain TCP only
   */
  tls?: ServerTlsOptions | undefined;
}

export const DEFAULT_REMOTING_SERVER_OPTIONS: Readonly<RemotingServerOptions> = Object.freeze({
  host: '127.0.0.1',
  port: 0,
  maxFrameSize: DEFAULT_MAX_FRAME_SIZE,
  maxInFlight: 4096,
  maxQueued: 10000,
  maxConnections: 10000,
  serverChannelMaxIdleTimeSeconds: 120,
  tlsHandshakeTimeoutMs: 10_000,
  writeBufferHighWaterMark: OUTBOX_PRESSURE_BYTES,
  logger: silentLogger,
  hooks: [],
  tls: undefined,
});

export function validateRemotingServerOptions(
  options: Partial<RemotingServerOptions> = {},
): RemotingServerOptions {
  const o = withDefaults<RemotingServerOptions>(DEFAULT_REMOTING_SERVER_OPTIONS, options);
  checkString('host', o.host);
  checkInt('port', o.port, 0, 65535);
  validateConnectionOptions({
    maxFrameSize: o.maxFrameSize,
    maxInFlight: o.maxInFlight,
    maxQueued: o.maxQueued,
    writeBufferHighWaterMark: o.writeBufferHighWaterMark,
  });
  checkInt('maxConnections', o.maxConnections, 1);
  if (o.serverChannelMaxIdleTimeSeconds !== 0)
    checkPositive('serverChannelMaxIdleTimeSeconds', o.serverChannelMaxIdleTimeSeconds);
  checkInt('tlsHandshakeTimeoutMs', o.tlsHandshakeTimeoutMs, 1, 0x7fffffff);
  checkLogger('logger', o.logger);
  if (!Array.isArray(o.hooks)) throw new InvalidArgumentError('hooks', 'must be an array of RpcHook');
  return o;
}

/** The resource limits a Broker or NameServer takes as its `serverLimits` option. */
export type ServerLimits = Pick<
  RemotingServerOptions,
  | 'maxConnections'
  | 'serverChannelMaxIdleTimeSeconds'
  | 'tlsHandshakeTimeoutMs'
  | 'maxInFlight'
  | 'maxFrameSize'
  | 'writeBufferHighWaterMark'
>;
const SERVER_LIMIT_KEYS: ReadonlyArray<keyof ServerLimits> = [
  'maxConnections',
  'serverChannelMaxIdleTimeSeconds',
  'tlsHandshakeTimeoutMs',
  'maxInFlight',
  'maxFrameSize',
  'writeBufferHighWaterMark',
];

/** Validates a `serverLimits` option (named `field`): only limit keys, each as the server checks it. */
export function validateServerLimits(field: string, limits: unknown): Partial<ServerLimits> {
  checkObject(field, limits);
  rejectUnknownKeys(limits, SERVER_LIMIT_KEYS, 'server limit', `${field}.`);
  validateRemotingServerOptions(limits as Partial<ServerLimits>);
  return limits as Partial<ServerLimits>;
}

export class RemotingServer extends EventEmitter {
  private readonly options: RemotingServerOptions;
  private readonly processors = new Map<number, RequestHandler>();
  private defaultProcessor: RequestHandler | undefined;
  private readonly server: net.Server;
  private readonly live = new Set<Connection>();
  private boundAddress: string | undefined;
  private closing: Promise<void> | undefined;
  private readonly tls: ServerTls | undefined;
  /** Sockets still in their TLS handshake or first-byte sniff. */
  private readonly handshaking = new Set<net.Socket>();

  constructor(options: Partial<RemotingServerOptions> = {}) {
    super();
    this.options = validateRemotingServerOptions(options);
    this.tls = resolveServerTls(this.options.tls);
    this.server = net.createServer((socket) => this.accept(socket));
    // Node closes sockets beyond the limit on accept, before any TLS handshake or frame.
    this.server.maxConnections = this.options.maxConnections;
    this.server.on('drop', (info) =>
      this.options.logger.warn('connection refused: maxConnections reached', {
        address: `${info?.remoteAddress}:${info?.remotePort}`,
        maxConnections: this.options.maxConnections,
      }),
    );
    this.server.on('error', (err) => this.options.logger.error('server socket error', { error: err }));
  }

  /** "host:port" once listening. */
  get address(): string {
    if (this.boundAddress === undefined) throw new IllegalStateError('RemotingServer is not listening');
    return this.boundAddress;
  }

  get connections(): ReadonlySet<Connection> {
    return this.live;
  }

  /** Every request code with a registered processor (the fuzzer sends each). */
  get requestCodes(): number[] {
    return [...this.processors.keys()];
  }

  registerProcessor(code: number, handler: RequestHandler): void {
    this.processors.set(code, handler);
  }

  /** Handles every code without a registered processor (instead of REQUEST_CODE_NOT_SUPPORTED). */
  setDefaultProcessor(handler: RequestHandler): void {
    this.defaultProcessor = handler;
  }

  listen(): Promise<{ host: string; port: number }> {
    if (this.closing !== undefined) return Promise.reject(new IllegalStateError('RemotingServer is closed'));
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.removeListener('error', onError);
        const info = this.server.address() as net.AddressInfo;
        this.boundAddress = `${info.address}:${info.port}`;
        resolve({ host: info.address, port: info.port });
      });
    });
  }

  /** Stops listening and closes every connection; resolves when all sockets are gone. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const listenerClosed = new Promise<void>((resolve) => {
        if (!this.server.listening) resolve();
        else this.server.close(() => resolve());
      });
      for (const s of this.handshaking) s.destroy();
      const conns = [...this.live];
      for (const c of conns) c.close();
      await Promise.all([listenerClosed, ...conns.map((c) => c.whenClosed())]);
    })();
    return this.closing;
  }

  private accept(socket: net.Socket): void {
    if (this.closing !== undefined) {
      socket.destroy();
      return;
    }
    if (this.tls === undefined) {
      this.open(socket, undefined);
      return;
    }
    const remoteAddress = `${socket.remoteAddress}:${socket.remotePort}`;
    this.handshaking.add(socket);
    // Until the handshake is done no idle timer runs (the Connection starts it): this one closes
    // a socket that sends nothing, or stalls mid-handshake, before it can hold a slot for good.
    const handshakeTimer = setTimeout(() => {
      this.options.logger.debug('TLS handshake timed out', {
        address: remoteAddress,
        tlsHandshakeTimeoutMs: this.options.tlsHandshakeTimeoutMs,
      });
      socket.destroy();
    }, this.options.tlsHandshakeTimeoutMs);
    handshakeTimer.unref();
    socket.once('close', () => {
      clearTimeout(handshakeTimer);
      this.handshaking.delete(socket);
    });
    acceptTls(
      socket,
      this.tls,
      (stream) => {
        clearTimeout(handshakeTimer);
        this.handshaking.delete(socket);
        if (this.closing !== undefined) stream.destroy();
        else this.open(stream, remoteAddress);
      },
      (err) => this.options.logger.debug('TLS accept failed', { address: remoteAddress, error: err }),
    );
  }

  private open(socket: net.Socket, remoteAddress: string | undefined): void {
    const o = this.options;
    const conn = new Connection(socket, {
      remoteAddress,
      maxFrameSize: o.maxFrameSize,
      maxInFlight: o.maxInFlight,
      maxQueued: o.maxQueued,
      writeBufferHighWaterMark: o.writeBufferHighWaterMark,
      idleTimeoutMs: Math.min(0x7fffffff, Math.round(o.serverChannelMaxIdleTimeSeconds * 1000)),
      logger: o.logger,
      requestHandler: this.dispatch,
    });
    if (conn.closed) return;
    this.live.add(conn);
    conn.once('close', () => {
      this.live.delete(conn);
      this.emit('disconnect', conn);
    });
    this.emit('connection', conn);
  }

  private readonly dispatch: RequestHandler = (request, conn) => {
    const hooks = this.options.hooks;
    if (hooks.length > 0) {
      try {
        runBeforeHooks(hooks, conn.remoteAddress, request);
      } catch (err) {
        if (!(err instanceof AccessDeniedError)) throw err;
        if ((request.flag & FLAG_ONEWAY) === 0)
          conn.sendResponse(createResponse(request, err.responseCode, err.remark));
        return undefined;
      }
    }
    const handler = this.processors.get(request.code) ?? this.defaultProcessor;
    if (handler === undefined) {
      // Java 4.9 answers an unknown code even when the request is oneway, in its default (JSON) type.
      const response = createResponse(
        request,
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        ` request type ${request.code} not supported`,
      );
      response.serializeType = SerializeType.JSON;
      conn.sendResponse(response);
      return undefined;
    }
    const result = handler(request, conn);
    if (hooks.length === 0 || (request.flag & FLAG_ONEWAY) !== 0) return result;
    const after = (response: RemotingCommand | undefined): RemotingCommand | undefined => {
      if (response !== undefined) runAfterHooks(hooks, conn.remoteAddress, request, response);
      return response;
    };
    if (result !== undefined && typeof (result as Promise<unknown>).then === 'function') {
      return (result as Promise<RemotingCommand | undefined>).then(after);
    }
    return after(result as RemotingCommand | undefined);
  };
}
