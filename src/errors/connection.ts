/** Transport failures: connect, timeout, closed connection, bad frames, local backpressure. */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

/** A TCP connection could not be established (refused, unreachable, connect timeout). */
export class ConnectError extends RocketMQError {
  readonly address: string;
  constructor(
    address: string,
    message: string,
    options: RocketMQErrorOptions = {},
    /** For subclasses with their own stable code. */
    code = 'ERR_CONNECT',
  ) {
    super(code, `connect to ${address} failed: ${message}`, { retriable: true, ...options });
    this.address = address;
  }
}

/**
 * The TLS server's certificate was not accepted: no trusted CA signed it, or it is for another
 * host name. Not retriable (the certificate will not change by itself); the message names the
 * option that fixes it: `tls.ca`, `tls.servername`, or `tls.rejectUnauthorized: false` to skip
 * verification as Java's client does (docs/security.md §1).
 */
export class TlsVerificationError extends ConnectError {
  /** OpenSSL's or Node's reason, e.g. `SELF_SIGNED_CERT_IN_CHAIN`, `ERR_TLS_CERT_ALTNAME_INVALID`. */
  readonly reason: string;
  constructor(address: string, reason: string, detail: string, options: RocketMQErrorOptions = {}) {
    const hostName = reason === 'ERR_TLS_CERT_ALTNAME_INVALID' || reason === 'HOSTNAME_MISMATCH';
    const fix = hostName
      ? 'connect by the host name the certificate is for, or set tls.servername to it'
      : 'give the CA that signed it as tls.ca (CLI --tls-ca FILE)';
    super(
      address,
      `the server certificate was not accepted (${reason}: ${detail}); ${fix}, or set ` +
        "tls.rejectUnauthorized: false (CLI --tls-insecure) to skip verification as Java's client does",
      { ...options, retriable: false },
      'ERR_TLS_VERIFICATION',
    );
    this.reason = reason;
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
