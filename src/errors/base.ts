/**
 * One root error class for the whole package. Callers decide with `instanceof` and the
 * `retriable` flag, never by comparing names. `code` is a stable string for logs and docs.
 * The families live beside this file (connection, broker, producer, consumer, admin); every
 * module imports them through the `src/errors.ts` barrel.
 */
export interface RocketMQErrorOptions {
  cause?: unknown;
  retriable?: boolean;
}

/** A queue as errors name it: structurally client/route.ts `MessageQueue`, which this layer cannot import. */
export interface QueueRef {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
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

/** An operation on a component that is not running (not started, or shut down). */
export class IllegalStateError extends RocketMQError {
  constructor(message: string, options: RocketMQErrorOptions = {}) {
    super('ERR_ILLEGAL_STATE', message, { retriable: false, ...options });
  }
}
