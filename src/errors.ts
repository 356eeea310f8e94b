/**
 * One root error class for the whole package. Callers decide with `instanceof` and the
 * `retriable` flag, never by comparing names. `code` is a stable string for logs and docs.
 */
export interface RocketMQErrorOptions {
  cause?: unknown;
  retriable?: boolean;
}

export class RocketMQError extends Error {
  /** Stable, documented identifier, e.g. `ERR_TIMEOUT`. */
  readonly code: string;
  /** Whether trying again (possibly elsewhere) may succeed. */
  readonly retriable: boolean;

  constructor(code: string, message: string, options: RocketMQErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
  }
}

/** Bad input from the caller: an option, a message field, a CLI flag. Never retriable. */
export class InvalidArgumentError extends RocketMQError {
  /** Name of the offending field or option, e.g. `topic` or `sendMsgTimeout`. */
  readonly field: string;
  constructor(field: string, message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_INVALID_ARGUMENT', `${field}: ${message}`, { ...options, retriable: false });
    this.field = field;
  }
}

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

/** The broker or NameServer answered with a non-success response code. */
export class BrokerResponseError extends RocketMQError {
  readonly responseCode: number;
  readonly remark: string | undefined;
  readonly address: string | undefined;
  constructor(
    responseCode: number,
    codeName: string,
    remark: string | undefined,
    address: string | undefined,
    options: RocketMQErrorOptions = {},
  ) {
    super(
      'ERR_BROKER_RESPONSE',
      `${codeName} (${responseCode})${address ? ` from ${address}` : ''}${remark ? `: ${remark}` : ''}`,
      options,
    );
    this.responseCode = responseCode;
    this.remark = remark;
    this.address = address;
  }
}

/** An operation on a component that is not running (not started, or shut down). */
export class IllegalStateError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_ILLEGAL_STATE', message, { retriable: false, ...options });
  }
}

/**
 * The server refused the request on ACL grounds (docs/security.md §2.5): a missing or
 * unknown AccessKey, a bad signature, or a missing permission. Never retriable: another broker of
 * the same cluster would refuse it too. A 4.9 broker says so with SYSTEM_ERROR and the
 * `AclException` text in the remark, a 5.x broker (and ours) with NO_PERMISSION.
 */
export class AccessDeniedError extends RocketMQError {
  /** The response code the server used (1 SYSTEM_ERROR from 4.9, 16 NO_PERMISSION from 5.x). */
  readonly responseCode: number;
  /** The server's reason, verbatim. */
  readonly remark: string;
  /** What was refused, e.g. `topic:TopicA`, `group:GroupA`, `code=17`; undefined when the reason is the identity. */
  readonly resource: string | undefined;
  /** The permission that was missing (`PUB`, `SUB`, `ADMIN`), when known. */
  readonly permission: string | undefined;
  readonly address: string | undefined;
  constructor(
    responseCode: number,
    remark: string,
    details: { resource?: string | undefined; permission?: string | undefined; address?: string | undefined },
    options: RocketMQErrorOptions = {},
  ) {
    const what =
      details.resource !== undefined ? ` (${details.permission ?? 'access'} on ${details.resource})` : '';
    super(
      'ERR_ACCESS_DENIED',
      `access denied${what}${details.address ? ` by ${details.address}` : ''}: ${remark}`,
      { ...options, retriable: false },
    );
    this.responseCode = responseCode;
    this.remark = remark;
    this.resource = details.resource;
    this.permission = details.permission;
    this.address = details.address;
  }
}
