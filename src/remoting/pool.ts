/**
 * Connections keyed by address. Concurrent `get()` calls share one connect promise; a closed
 * connection leaves the pool, so the next `get()` reconnects.
 *
 * Events: 'connect' once a connection is open, 'disconnect' when it closes (the one source of
 * the clients' connect / disconnect events, docs/events.md).
 */
import { EventEmitter } from 'node:events';
import { IllegalStateError, TimeoutError } from '../errors.js';
import type { RemotingCommand } from '../protocol/command.js';
import { raceAbort, throwIfAborted } from './abort.js';
import { Connection } from './connection.js';
import { validateConnectionOptions, type ConnectionOptions } from './options.js';

interface Entry {
  readonly promise: Promise<Connection>;
  readonly abort: AbortController;
  connection: Connection | undefined;
}

export interface ConnectEvent {
  /** `host:port` of the peer. */
  address: string;
}

export interface DisconnectEvent {
  address: string;
  /** Why it closed; undefined for an orderly close (ours or the peer's FIN). */
  error: Error | undefined;
}

export interface ConnectionPoolEvents {
  connect: [ConnectEvent];
  disconnect: [DisconnectEvent];
}

export class ConnectionPool extends EventEmitter<ConnectionPoolEvents> {
  private readonly options: ConnectionOptions;
  private readonly entries = new Map<string, Entry>();
  private readonly all = new Set<Connection>();
  private isClosed = false;

  constructor(options: Partial<ConnectionOptions> = {}) {
    super();
    // Every client sharing the instance listens.
    this.setMaxListeners(0);
    this.options = validateConnectionOptions(options);
  }

  /** Number of addresses with an open or opening connection. */
  get size(): number {
    return this.entries.size;
  }

  get(address: string): Promise<Connection> {
    if (this.isClosed) return Promise.reject(new IllegalStateError('connection pool is closed'));
    const existing = this.entries.get(address);
    if (existing !== undefined) return existing.promise;
    const abort = new AbortController();
    const promise = Connection.connect(address, { ...this.options, remoteAddress: address }, abort.signal);
    const entry: Entry = { promise, abort, connection: undefined };
    this.entries.set(address, entry);
    promise.then(
      (conn) => {
        if (this.isClosed || this.entries.get(address) !== entry) {
          conn.close();
          return;
        }
        entry.connection = conn;
        this.all.add(conn);
        conn.once('close', (error?: Error) => {
          this.all.delete(conn);
          if (this.entries.get(address) === entry) this.entries.delete(address);
          this.report('disconnect', () => this.emit('disconnect', { address, error }));
        });
        this.report('connect', () => this.emit('connect', { address }));
      },
      () => {
        if (this.entries.get(address) === entry) this.entries.delete(address);
      },
    );
    return promise;
  }

  /**
   * Emits a connection event. A listener that throws must not break the pool (the emit runs in
   * a promise callback or a socket's close): its error is logged.
   */
  private report(event: keyof ConnectionPoolEvents, emit: () => void): void {
    try {
      emit();
    } catch (err) {
      this.options.logger.warn(`a '${event}' listener threw`, { error: err });
    }
  }

  /**
   * Sends a request; the connect time counts against `timeoutMs`. `signal` (remoting/abort.ts)
   * gives up the wait for the connect (which goes on for the other callers) or the request.
   */
  request(
    address: string,
    cmd: RemotingCommand,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RemotingCommand> {
    // An open connection takes the request directly: no async frame and no extra turn per request.
    const open = this.entries.get(address)?.connection;
    if (open !== undefined && !open.closed && timeoutMs > 0) return open.request(cmd, timeoutMs, signal);
    return this.connectAndRequest(address, cmd, timeoutMs, signal);
  }

  private async connectAndRequest(
    address: string,
    cmd: RemotingCommand,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<RemotingCommand> {
    const started = Date.now();
    throwIfAborted(signal);
    const conn = await raceAbort(this.getWithin(address, cmd.code, timeoutMs, started), signal);
    const remaining = timeoutMs - (Date.now() - started);
    if (remaining <= 0) throw new TimeoutError(address, cmd.code, Date.now() - started);
    return conn.request(cmd, remaining, signal);
  }

  /**
   * Sends a oneway request; resolves when written. Connect and write must finish within
   * `timeoutMs`; `signal` gives up the connect, or the write while it waits for the socket.
   */
  async oneway(
    address: string,
    cmd: RemotingCommand,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    const started = Date.now();
    throwIfAborted(signal);
    const conn = await raceAbort(this.getWithin(address, cmd.code, timeoutMs, started), signal);
    throwIfAborted(signal);
    await raceTimeout(
      raceAbort(conn.oneway(cmd), signal),
      timeoutMs - (Date.now() - started),
      () => new TimeoutError(address, cmd.code, Date.now() - started),
    );
  }

  /** Closes the connection to `address` (if any); the next `get()` opens a new one. */
  closeConnection(address: string): void {
    const entry = this.entries.get(address);
    if (entry === undefined) return;
    this.entries.delete(address);
    if (entry.connection !== undefined) entry.connection.close();
    else entry.abort.abort();
  }

  /** Closes every connection and resolves once their sockets are gone. */
  async close(): Promise<void> {
    this.isClosed = true;
    for (const e of this.entries.values()) if (e.connection === undefined) e.abort.abort();
    const pending = [...this.entries.values()].map((e) => e.promise.catch(() => undefined));
    this.entries.clear();
    const opened = await Promise.all(pending);
    const conns = new Set<Connection>(this.all);
    for (const c of opened) if (c !== undefined) conns.add(c);
    for (const c of conns) c.close();
    await Promise.all([...conns].map((c) => c.whenClosed()));
  }

  private getWithin(address: string, code: number, timeoutMs: number, started: number): Promise<Connection> {
    const entry = this.entries.get(address);
    if (entry?.connection !== undefined && !entry.connection.closed) return Promise.resolve(entry.connection);
    return raceTimeout(
      this.get(address),
      timeoutMs - (Date.now() - started),
      () => new TimeoutError(address, code, Date.now() - started),
    );
  }
}

/**
 * `promise`, or a rejection with `onTimeout()` after `timeoutMs`: the one promise-vs-timer race
 * of the package (client/deadline.ts builds on it). The timer is unref'd and cleared when the
 * promise settles; a budget already spent rejects at once (the promise's own rejection is then
 * swallowed).
 */
export function raceTimeout<T>(promise: Promise<T>, timeoutMs: number, onTimeout: () => Error): Promise<T> {
  if (timeoutMs <= 0) {
    promise.catch(() => undefined);
    return Promise.reject(onTimeout());
  }
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), timeoutMs);
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
