/**
 * One TCP connection speaking the remoting protocol, used by clients and servers alike
 * (docs/protocol.md §1.5: both sides may send requests on it). Requests are matched to responses by
 * `opaque`; requests the other side initiates go to the request handler.
 *
 * Memory is bounded everywhere: at most `maxInFlight` requests written and `maxQueued` waiting,
 * inbound handling capped at `maxInFlight` (reading pauses), and reading also pauses while the
 * socket needs draining and our own write buffer is large.
 *
 * Over 500 lines on purpose: the request tables, their one timer, abort and close are one state
 * machine over the same fields, and splitting it would spread one invariant over two files.
 */
import { EventEmitter } from 'node:events';
import * as net from 'node:net';
import * as tls from 'node:tls';
import {
  BackpressureError,
  ConnectError,
  ConnectionClosedError,
  IllegalStateError,
  InvalidArgumentError,
  ProtocolError,
  TimeoutError,
  TlsVerificationError,
} from '../errors.js';
import {
  requestChannel,
  tracingHasSubscribers,
  type RequestTraceContext,
} from '../observability/channels.js';
import { hexDump, wireDebug, type Logger } from '../observability/logger.js';
import { throwIfAborted, whenAborted } from './abort.js';
import { ResponseCode } from '../protocol/codes.js';
import {
  createResponse,
  FLAG_ONEWAY,
  FLAG_RESPONSE,
  SerializeType,
  type RemotingCommand,
} from '../protocol/command.js';
import { decodeFrame } from '../protocol/frame.js';
import { FrameParser } from './frame-parser.js';
import { FrameWriter } from './frame-writer.js';
import { OpaqueTable } from './opaque-table.js';
import { takeWriteRelease } from './write-buffer-pool.js';
import { runAfterHooks, runBeforeHooks, type RpcHook } from './hooks.js';
import {
  parseAddress,
  validateConnectionOptions,
  type ConnectionOptions,
  type RequestHandler,
} from './options.js';

export type { ConnectionOptions, RequestHandler } from './options.js';
export { DEFAULT_CONNECTION_OPTIONS } from './options.js';

let opaqueCounter = 0;
/** Per-process request id, Java's `AtomicInteger.getAndIncrement()`: starts at 0, wraps to negative. */
export function nextOpaque(): number {
  const value = opaqueCounter;
  opaqueCounter = (opaqueCounter + 1) | 0;
  return value;
}

/** Longest delay `setTimeout` accepts; larger ones would fire after 1 ms. */
const MAX_TIMER_DELAY = 0x7fffffff;

/**
 * Aborted requests whose response may still come, remembered so that it is dropped quietly
 * (it is expected, not a stray): at most this many, oldest forgotten first.
 */
const MAX_ABANDONED = 1024;

interface Pending {
  readonly cmd: RemotingCommand;
  readonly startedAt: number;
  readonly deadline: number;
  readonly resolve: (response: RemotingCommand) => void;
  readonly reject: (err: unknown) => void;
  trace: RequestTraceContext | undefined;
  /** Removes the listener on the caller's AbortSignal; undefined without a signal. */
  dispose: (() => void) | undefined;
}

/**
 * The reasons Node gives when it refuses a server certificate: OpenSSL's verify results, and
 * its own host name check. Any other TLS error (a plain server, a protocol mismatch) is not one.
 */
const CERTIFICATE_REJECTIONS: ReadonlySet<string> = new Set([
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_CHAIN_TOO_LONG',
  'CERT_REVOKED',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

function isCertificateRejection(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code !== undefined && CERTIFICATE_REJECTIONS.has(code);
}

function settleTrace(ctx: RequestTraceContext | undefined, error: unknown, response?: RemotingCommand): void {
  if (ctx === undefined) return;
  if (error !== undefined) {
    ctx.error = error;
    requestChannel.error.publish(ctx);
  } else if (response !== undefined) {
    ctx.response = response;
  }
  requestChannel.asyncStart.publish(ctx);
  requestChannel.asyncEnd.publish(ctx);
}

function sweepTick(conn: Connection): void {
  conn['sweep']();
}

export class Connection extends EventEmitter {
  readonly remoteAddress: string;
  readonly localAddress: string;
  private readonly socket: net.Socket;
  private readonly logger: Logger;
  private readonly hooks: ReadonlyArray<RpcHook>;
  private readonly maxInFlight: number;
  private readonly maxQueued: number;
  private readonly parser: FrameParser;
  private handler: RequestHandler | undefined;
  private readonly inFlight = new OpaqueTable<Pending>();
  /** Requests waiting for an in-flight slot, in arrival order. */
  private readonly queued = new Map<number, Pending>();
  /** Opaque → deadline of requests aborted after they were written (see MAX_ABANDONED). */
  private readonly abandoned = new Map<number, number>();
  private readonly writer: FrameWriter;
  private inboundActive = 0;
  /** Frames read while reading was paused, handled in order once it resumes. */
  private readonly backlog: Buffer[] = [];
  private readPausedInbound = false;
  private readPausedOutbox = false;
  private isClosed = false;
  private readonly socketClosed: Promise<void>;
  /**
   * One timer per connection, armed for the earliest deadline, instead of one per request:
   * requests mostly share a timeout, so new deadlines are later and rarely re-arm it.
   */
  private timer: NodeJS.Timeout | undefined;
  private timerDeadline = Infinity;

  /**
   * Opens a connection to `address` ("host:port"). Rejects with ConnectError when the connect
   * fails, takes longer than `connectTimeoutMs`, or `signal` aborts it.
   */
  static connect(
    address: string,
    options: Partial<ConnectionOptions> = {},
    signal?: AbortSignal,
  ): Promise<Connection> {
    let opts: ConnectionOptions;
    let target: { host: string; port: number };
    try {
      opts = validateConnectionOptions(options);
      target = parseAddress(address);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      // A TLS connection is ready after its handshake; a failed handshake (bad certificate,
      // a plain server closing on the ClientHello) surfaces as 'error' or 'close' before it.
      const secure = opts.tls !== undefined;
      const socket: net.Socket = secure
        ? tls.connect({ ...opts.tls, host: target.host, port: target.port })
        : net.connect({ host: target.host, port: target.port });
      const readyEvent = secure ? 'secureConnect' : 'connect';
      const onAbort = (): void => fail(new ConnectError(address, 'aborted'));
      const fail = (err: ConnectError): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        socket.removeListener(readyEvent, onConnect);
        socket.removeListener('close', onClose);
        socket.destroy();
        reject(err);
      };
      const onError = (err: Error): void =>
        fail(
          secure && isCertificateRejection(err)
            ? new TlsVerificationError(address, (err as NodeJS.ErrnoException).code!, err.message, {
                cause: err,
              })
            : new ConnectError(address, err.message, { cause: err }),
        );
      const onClose = (): void =>
        fail(
          new ConnectError(address, secure ? 'TLS handshake failed: connection closed' : 'connection closed'),
        );
      const onConnect = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        socket.removeListener('close', onClose);
        resolve(new Connection(socket, { ...opts, remoteAddress: opts.remoteAddress ?? address }));
      };
      const timer = setTimeout(
        () => fail(new ConnectError(address, `timed out after ${opts.connectTimeoutMs} ms`)),
        opts.connectTimeoutMs,
      );
      timer.unref();
      socket.once('error', onError);
      socket.once('close', onClose);
      socket.once(readyEvent, onConnect);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Wraps an already connected socket (the server side of `RemotingServer`). */
  constructor(socket: net.Socket, options: Partial<ConnectionOptions> = {}) {
    super();
    const opts = validateConnectionOptions(options);
    this.socket = socket;
    this.logger = opts.logger;
    this.hooks = opts.hooks;
    this.maxInFlight = opts.maxInFlight;
    this.maxQueued = opts.maxQueued;
    this.handler = opts.requestHandler;
    this.remoteAddress = opts.remoteAddress ?? `${socket.remoteAddress}:${socket.remotePort}`;
    this.parser = new FrameParser(opts.maxFrameSize, this.remoteAddress);
    this.localAddress = `${socket.localAddress}:${socket.localPort}`;
    socket.setNoDelay(true);
    this.socketClosed = socket.closed
      ? Promise.resolve()
      : new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.writer = new FrameWriter(
      socket,
      this.remoteAddress,
      (pressure) => {
        this.readPausedOutbox = pressure;
        this.updateReading();
      },
      opts.writeBufferHighWaterMark,
    );
    if (opts.idleTimeoutMs > 0) {
      // The socket's timer restarts on every read and write: it fires after a stretch of neither
      // (Java's ALL_IDLE), which includes a peer that stopped reading while we wait to write.
      socket.setTimeout(opts.idleTimeoutMs);
      socket.on('timeout', () =>
        this.close(new ConnectionClosedError(this.remoteAddress, `idle for ${opts.idleTimeoutMs} ms`)),
      );
    }
    socket.on('error', (err) => this.close(err));
    socket.on('close', () => this.close());
    if (socket.destroyed) this.close();
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Outbound bytes not yet taken by the peer: queued frames plus the socket's own buffer. */
  get bufferedOutboundBytes(): number {
    return this.writer.queuedBytes + this.socket.writableLength;
  }

  /** Requests written or queued that have not settled yet. */
  get pendingCount(): number {
    return this.inFlight.size + this.queued.size;
  }

  /** Resolves once the socket is fully closed (after `close()` or the peer hanging up). */
  whenClosed(): Promise<void> {
    return this.socketClosed;
  }

  setRequestHandler(handler: RequestHandler): void {
    this.handler = handler;
  }

  /**
   * Sends `cmd` (its `opaque` is assigned here) and resolves with the response. The timeout
   * covers time spent waiting in the queue. Rejects with TimeoutError, ConnectionClosedError,
   * ProtocolError (the peer sent a malformed frame) or BackpressureError; with AbortError when
   * `signal` aborts: nothing is sent if it aborted already, and otherwise the request leaves the
   * table at once (its slot goes to the next queued request) and a response that still comes
   * is dropped quietly.
   */
  request(cmd: RemotingCommand, timeoutMs: number, signal?: AbortSignal): Promise<RemotingCommand> {
    if (this.isClosed) return Promise.reject(new ConnectionClosedError(this.remoteAddress));
    if (!(timeoutMs > 0)) {
      return Promise.reject(new InvalidArgumentError('timeoutMs', `must be > 0, got ${timeoutMs}`));
    }
    try {
      throwIfAborted(signal, `request code ${cmd.code} to ${this.remoteAddress}`);
    } catch (err) {
      return Promise.reject(err);
    }
    const mustQueue = this.inFlight.size >= this.maxInFlight || this.queued.size > 0;
    if (mustQueue && this.queued.size >= this.maxQueued) {
      return Promise.reject(
        new BackpressureError(
          `${this.remoteAddress}: ${this.inFlight.size} requests in flight and ${this.queued.size} queued (maxQueued)`,
        ),
      );
    }
    cmd.opaque = nextOpaque();
    cmd.flag &= ~(FLAG_ONEWAY | FLAG_RESPONSE);
    try {
      if (this.hooks.length > 0) runBeforeHooks(this.hooks, this.remoteAddress, cmd);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<RemotingCommand>((resolve, reject) => {
      const now = Date.now();
      const p: Pending = {
        cmd,
        startedAt: now,
        deadline: now + timeoutMs,
        resolve,
        reject,
        trace: undefined,
        dispose: undefined,
      };
      if (tracingHasSubscribers(requestChannel)) {
        p.trace = { address: this.remoteAddress, code: cmd.code, opaque: cmd.opaque, oneway: false };
        requestChannel.start.publish(p.trace);
      }
      if (p.deadline < this.timerDeadline) this.armTimer(p.deadline);
      if (mustQueue) this.queued.set(cmd.opaque, p);
      else this.dispatch(p);
      // Only a request still in a table can be aborted (dispatch may have failed it already).
      if (signal !== undefined && (this.queued.get(cmd.opaque) === p || this.inFlight.get(cmd.opaque) === p))
        p.dispose = whenAborted(signal, (err) => this.abandon(p, err), `request code ${cmd.code}`);
      if (p.trace !== undefined) requestChannel.end.publish(p.trace);
    });
  }

  /** Sends `cmd` as a oneway request (FLAG_ONEWAY set here); resolves once the socket took it. */
  oneway(cmd: RemotingCommand): Promise<void> {
    if (this.isClosed) return Promise.reject(new ConnectionClosedError(this.remoteAddress));
    if (this.writer.blocked && this.writer.queuedFrames >= this.maxQueued) {
      return Promise.reject(
        new BackpressureError(
          `${this.remoteAddress}: ${this.writer.queuedFrames} frames waiting for the socket to drain`,
        ),
      );
    }
    cmd.opaque = nextOpaque();
    cmd.flag = (cmd.flag | FLAG_ONEWAY) & ~FLAG_RESPONSE;
    return new Promise<void>((resolve, reject) => {
      let trace: RequestTraceContext | undefined;
      if (tracingHasSubscribers(requestChannel)) {
        trace = { address: this.remoteAddress, code: cmd.code, opaque: cmd.opaque, oneway: true };
        requestChannel.start.publish(trace);
      }
      try {
        if (this.hooks.length > 0) runBeforeHooks(this.hooks, this.remoteAddress, cmd);
        this.writer.enqueue(cmd, (err) => {
          if (err) {
            const wrapped =
              err instanceof ConnectionClosedError || err instanceof ProtocolError
                ? err
                : this.closeReason(err);
            settleTrace(trace, wrapped);
            reject(wrapped);
          } else {
            settleTrace(trace, undefined);
            resolve();
          }
        });
      } catch (err) {
        settleTrace(trace, err);
        reject(err);
      }
      if (trace !== undefined) requestChannel.end.publish(trace);
    });
  }

  /** Writes a response; `cmd` must already carry the request's opaque. Dropped when closed. */
  sendResponse(cmd: RemotingCommand): void {
    const release = takeWriteRelease(cmd);
    if (this.isClosed) {
      release?.();
      this.logger.debug('dropping response on a closed connection', {
        address: this.remoteAddress,
        opaque: cmd.opaque,
      });
      return;
    }
    cmd.flag |= FLAG_RESPONSE;
    try {
      this.writer.enqueue(cmd, release);
    } catch (err) {
      release?.();
      this.logger.error('cannot encode response', {
        address: this.remoteAddress,
        code: cmd.code,
        error: err,
      });
    }
  }

  /**
   * Closes the socket and rejects every pending request at once with one error: `err` itself
   * when it is a ProtocolError, otherwise a ConnectionClosedError (cause: `err`). Emits 'close'
   * with `err` once.
   */
  close(err?: Error): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const reason = this.closeReason(err);
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const table of [this.inFlight, this.queued]) {
      for (const p of table.values()) {
        p.dispose?.();
        settleTrace(p.trace, reason);
        p.reject(reason);
      }
      table.clear();
    }
    this.abandoned.clear();
    this.writer.discard(reason);
    this.backlog.length = 0;
    this.socket.destroy();
    if (err !== undefined) {
      this.logger.warn('connection closed', { address: this.remoteAddress, error: err });
    } else {
      this.logger.debug('connection closed', { address: this.remoteAddress });
    }
    this.emit('close', err);
  }

  private closeReason(err: Error | null | undefined): Error {
    if (err instanceof ProtocolError) return err;
    if (err == null) return new ConnectionClosedError(this.remoteAddress);
    return new ConnectionClosedError(this.remoteAddress, `connection closed: ${err.message}`, { cause: err });
  }

  private dispatch(p: Pending): void {
    const opaque = p.cmd.opaque;
    if (this.inFlight.has(opaque)) {
      const err = new IllegalStateError(`opaque ${opaque} already in flight on ${this.remoteAddress}`);
      p.dispose?.();
      settleTrace(p.trace, err);
      p.reject(err);
      return;
    }
    this.inFlight.set(opaque, p);
    try {
      this.writer.enqueue(p.cmd, undefined);
    } catch (err) {
      this.inFlight.delete(opaque);
      p.dispose?.();
      settleTrace(p.trace, err);
      p.reject(err);
    }
  }

  /**
   * The caller's signal aborted `p`: it leaves the tables now, not at its deadline. One already
   * written is remembered in `abandoned` until its deadline, so its late response is expected.
   */
  private abandon(p: Pending, err: Error): void {
    const opaque = p.cmd.opaque;
    if (this.queued.get(opaque) === p) this.queued.delete(opaque);
    else if (this.inFlight.get(opaque) === p) {
      this.inFlight.delete(opaque);
      for (const [old, deadline] of this.abandoned) {
        if (deadline > Date.now() && this.abandoned.size < MAX_ABANDONED) break;
        this.abandoned.delete(old);
      }
      this.abandoned.set(opaque, p.deadline);
      this.admitQueued();
    } else return; // settled already
    if (this.pendingCount === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerDeadline = Infinity;
    }
    settleTrace(p.trace, err);
    p.reject(err);
  }

  private admitQueued(): void {
    while (this.queued.size > 0 && this.inFlight.size < this.maxInFlight && !this.isClosed) {
      const first = this.queued.entries().next().value as [number, Pending];
      this.queued.delete(first[0]);
      this.dispatch(first[1]);
    }
  }

  private armTimer(deadline: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timerDeadline = deadline;
    this.timer = setTimeout(sweepTick, Math.min(MAX_TIMER_DELAY, Math.max(1, deadline - Date.now())), this);
    this.timer.unref();
  }

  /** Timer callback: rejects every request past its deadline and re-arms for the next one. */
  private sweep(): void {
    this.timer = undefined;
    this.timerDeadline = Infinity;
    if (this.isClosed) return;
    const now = Date.now();
    let next = Infinity;
    let freedSlot = false;
    for (const table of [this.inFlight, this.queued]) {
      // Deleting the current entry while iterating a Map is safe.
      for (const [opaque, p] of table) {
        if (p.deadline > now) {
          if (p.deadline < next) next = p.deadline;
          continue;
        }
        table.delete(opaque);
        if (table === this.inFlight) freedSlot = true;
        p.dispose?.();
        const err = new TimeoutError(this.remoteAddress, p.cmd.code, now - p.startedAt);
        settleTrace(p.trace, err);
        p.reject(err);
      }
    }
    if (freedSlot) this.admitQueued();
    if (next < this.timerDeadline) this.armTimer(next);
  }

  private get readingPaused(): boolean {
    return this.readPausedInbound || this.readPausedOutbox;
  }

  private updateReading(): void {
    if (this.isClosed) return;
    if (this.readingPaused) {
      this.socket.pause();
      return;
    }
    this.socket.resume();
    if (this.backlog.length > 0) this.handleBacklog();
  }

  /** Handles the frames held back by a pause, until the next pause. */
  private handleBacklog(): void {
    try {
      while (this.backlog.length > 0 && !this.readingPaused && !this.isClosed) {
        this.handleFrame(this.backlog.shift() as Buffer);
      }
    } catch (err) {
      this.close(
        err instanceof ProtocolError
          ? err
          : new ProtocolError(`frame handling failed: ${String(err)}`, { cause: err }),
      );
    }
  }

  // ---- reading -------------------------------------------------------------------------

  private readonly onFrame = (frame: Buffer): void => {
    if (this.isClosed) return;
    // Pausing the socket stops further reads, but one read chunk can hold hundreds of small
    // requests, each answered with a large response: the rest of the chunk waits here, so a
    // peer that never reads costs at most one chunk of requests (found by the slow-reader test).
    if (this.readingPaused || this.backlog.length > 0) {
      this.backlog.push(frame);
      return;
    }
    this.handleFrame(frame);
  };

  private handleFrame(frame: Buffer): void {
    let cmd: RemotingCommand;
    try {
      cmd = decodeFrame(frame);
    } catch (err) {
      throw err instanceof ProtocolError
        ? err
        : new ProtocolError(`cannot decode frame: ${(err as Error).message}`, { cause: err });
    }
    if (wireDebug.enabled) wireDebug('recv %s %s', this.remoteAddress, hexDump([frame]));
    if ((cmd.flag & FLAG_RESPONSE) !== 0) this.onResponse(cmd);
    else this.onRequest(cmd);
  }

  private onData(chunk: Buffer): void {
    try {
      this.parser.push(chunk, this.onFrame);
    } catch (err) {
      const error =
        err instanceof ProtocolError
          ? err
          : new ProtocolError(`frame handling failed: ${String(err)}`, { cause: err });
      this.close(error);
    }
  }

  private onResponse(response: RemotingCommand): void {
    const p = this.inFlight.get(response.opaque);
    if (p === undefined) {
      if (this.abandoned.delete(response.opaque)) {
        this.logger.debug('dropping the response to an aborted request', {
          address: this.remoteAddress,
          opaque: response.opaque,
        });
        return;
      }
      this.logger.warn('dropping a response that matches no pending request (late or unknown)', {
        address: this.remoteAddress,
        opaque: response.opaque,
        code: response.code,
      });
      return;
    }
    this.inFlight.delete(response.opaque);
    p.dispose?.();
    try {
      if (this.hooks.length > 0) runAfterHooks(this.hooks, this.remoteAddress, p.cmd, response);
      settleTrace(p.trace, undefined, response);
      p.resolve(response);
    } catch (err) {
      settleTrace(p.trace, err);
      p.reject(err);
    }
    if (this.queued.size > 0) this.admitQueued();
  }

  private onRequest(request: RemotingCommand): void {
    const oneway = (request.flag & FLAG_ONEWAY) !== 0;
    const handler = this.handler;
    if (handler === undefined) {
      if (!oneway) {
        this.sendResponse(
          createResponse(
            request,
            ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
            ` request type ${request.code} not supported`,
          ),
        );
      }
      return;
    }
    let result: ReturnType<RequestHandler>;
    try {
      result = handler(request, this);
    } catch (err) {
      this.answerError(request, oneway, err);
      return;
    }
    if (result !== undefined && typeof (result as Promise<unknown>).then === 'function') {
      if (++this.inboundActive >= this.maxInFlight && !this.readPausedInbound) {
        this.readPausedInbound = true;
        this.updateReading();
      }
      (result as Promise<RemotingCommand | undefined>).then(
        (response) => {
          this.inboundDone();
          this.answer(request, oneway, response);
        },
        (err: unknown) => {
          this.inboundDone();
          this.answerError(request, oneway, err);
        },
      );
    } else {
      this.answer(request, oneway, result as RemotingCommand | undefined);
    }
  }

  private inboundDone(): void {
    this.inboundActive--;
    if (this.readPausedInbound && this.inboundActive < this.maxInFlight) {
      this.readPausedInbound = false;
      this.updateReading();
    }
  }

  private answer(request: RemotingCommand, oneway: boolean, response: RemotingCommand | undefined): void {
    if (response === undefined) return;
    if (oneway) {
      this.logger.debug('not answering a oneway request', {
        address: this.remoteAddress,
        code: request.code,
      });
      return;
    }
    response.opaque = request.opaque;
    this.sendResponse(response);
  }

  /** Java answers a failing processor with SYSTEM_ERROR in its default (JSON) serialization. */
  private answerError(request: RemotingCommand, oneway: boolean, err: unknown): void {
    this.logger.warn('request handler failed', {
      address: this.remoteAddress,
      code: request.code,
      error: err,
    });
    if (oneway) return;
    const remark = err instanceof Error ? err.message : String(err);
    const response = createResponse(request, ResponseCode.SYSTEM_ERROR, remark);
    response.serializeType = SerializeType.JSON;
    this.sendResponse(response);
  }
}
