/** Transport failures: connect, timeout, closed connection, bad frames, local backpressure. */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

/** A TCP connection could not be established (refused, unreachable, connect timeout). */
export class ConnectError extends RocketMQError {
  readonly address: string;
  constructor(address: string, message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_CONNECT', `connect to ${address} failed: ${message}`, { retriable: true, ...options });
    this.address = address;
  }
}

/** A request got no response in time. */
export class TimeoutError extends RocketMQError {
  readonly address: string;
  readonly requestCode: number;
  readonly elapsedMs: number;
  constructor(
    address: string,
    requestCode: number,
    elapsedMs: number,
    message?: string,
    options: RocketMQErrorOptions = {},
  ) {
    super(
      'ERR_TIMEOUT',
      message ?? `request code ${requestCode} to ${address} timed out after ${elapsedMs} ms`,
      { retriable: true, ...options },
    );
    this.address = address;
    this.requestCode = requestCode;
    this.elapsedMs = elapsedMs;
  }
}

/** The connection closed (or was closed) while a request was in flight or queued. */
export class ConnectionClosedError extends RocketMQError {
  readonly address: string;
  constructor(address: string, message = 'connection closed', options: RocketMQErrorOptions = {}) {
    super('ERR_CONNECTION_CLOSED', `${address}: ${message}`, { retriable: true, ...options });
    this.address = address;
  }
}

/** Bytes on the wire that do not form a valid RocketMQ frame. The connection is closed. */
export class ProtocolError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_PROTOCOL', message, { retriable: false, ...options });
  }
}

/** Local backpressure limit hit: too many requests in flight and the wait queue is full. */
export class BackpressureError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_BACKPRESSURE', message, { retriable: true, ...options });
  }
}
