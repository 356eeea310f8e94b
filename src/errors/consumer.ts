/**
 * Consumer errors: handler timeouts, unreadable bodies, offsets, replies, POP and bad filter
 * expressions (FilterExpressionError is thrown by the SQL92 parser in protocol/filter/, which
 * both the consumers and the embedded broker use).
 */
import { InvalidArgumentError, RocketMQError, type RocketMQErrorOptions, type QueueRef } from './base.js';

/** A handler call outlived consumeTimeout; its messages are retried. */
export class HandlerTimeoutError extends RocketMQError {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super('ERR_CONSUME_TIMEOUT', `handler did not settle within consumeTimeout (${timeoutMs} ms)`, {
      retriable: true,
    });
    this.timeoutMs = timeoutMs;
  }
}

/** A body whose sysFlag names a compression type outside ZLIB / LZ4 / ZSTD. */
export class UnsupportedCompressionError extends RocketMQError {
  readonly compressionType: string;
  constructor(compressionType: string, sysFlag: number) {
    super(
      'ERR_UNSUPPORTED_COMPRESSION',
      `message body compressed with ${compressionType} (sysFlag ${sysFlag}), which no RocketMQ client knows`,
      { retriable: false },
    );
    this.compressionType = compressionType;
  }
}

/** A sync commit the broker did not confirm for some queues. */
export class OffsetCommitError extends RocketMQError {
  constructor(
    readonly queues: QueueRef[],
    options: RocketMQErrorOptions = {},
  ) {
    super('OFFSET_COMMIT_FAILED', `committing the offsets of ${queues.length} queue(s) failed`, {
      retriable: true,
      ...options,
    });
  }
}

/** The broker holding a queue's offset could not be asked (no route, or no answer). */
export class OffsetReadError extends RocketMQError {
  constructor(readonly queue: QueueRef) {
    super(
      'OFFSET_READ_FAILED',
      `reading the committed offset of ${queue.topic}@${queue.brokerName}:${queue.queueId} failed`,
      { retriable: true },
    );
  }
}

/** The request message cannot be replied to (Java client code 10007, CREATE_REPLY_MESSAGE_EXCEPTION). */
export class ReplyNotPossibleError extends RocketMQError {
  constructor(reason: string) {
    super('ERR_CREATE_REPLY_MESSAGE', `cannot reply: ${reason}`, { retriable: false });
  }
}

/** The broker does not speak POP (a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED): POP needs RocketMQ 5. */
export class PopNotSupportedError extends RocketMQError {
  readonly address: string;
  /** True when the address is a RocketMQ 5 Proxy's remoting endpoint rather than a 4.x broker. */
  readonly proxy: boolean;
  constructor(
    brokerName: string,
    address: string,
    options: RocketMQErrorOptions & { proxy?: boolean; remark?: string | undefined } = {},
  ) {
    const { proxy = false, remark, ...rest } = options;
    super(
      'ERR_POP_NOT_SUPPORTED',
      proxy
        ? `broker ${brokerName} is reached through a RocketMQ 5 Proxy at ${address}, whose remoting ` +
            'endpoint does not serve POP consumption (5.5.0 reads POP_MESSAGE as a pull and never ' +
            `answers ACK_MESSAGE${remark ? `; it answered: ${remark.slice(0, 160)}` : ''}): point the ` +
            'SimpleConsumer at a NameServer, or consume through the Proxy with PushConsumer or LitePullConsumer'
        : `broker ${brokerName} at ${address} does not support POP (REQUEST_CODE_NOT_SUPPORTED): ` +
            'SimpleConsumer needs a RocketMQ 5.x broker; use PushConsumer or LitePullConsumer with RocketMQ 4.x',
      { ...rest, retriable: false },
    );
    this.address = address;
    this.proxy = proxy;
  }
}

/**
 * A receipt handle that cannot be used: from another consumer group, expired (its invisible time
 * is over, so the broker will deliver the message again), already acked, or malformed. Nothing is
 * lost: an un-acked message comes back after its invisible time.
 */
export class InvalidReceiptHandleError extends RocketMQError {
  readonly receiptHandle: string;
  constructor(receiptHandle: string, reason: string, options: RocketMQErrorOptions = {}) {
    super('ERR_INVALID_RECEIPT_HANDLE', `receipt handle "${receiptHandle}": ${reason}`, {
      ...options,
      retriable: false,
    });
    this.receiptHandle = receiptHandle;
  }
}

/**
 * `ack(messages[])` of a SimpleConsumer: some of the messages were not acked. `failures` names each
 * with its own error (InvalidReceiptHandleError for a stale or foreign handle, a broker or
 * connection error otherwise); every message not listed was acked. Retriable when every failure is.
 */
export class AckFailedError<M = unknown> extends RocketMQError {
  readonly failures: ReadonlyArray<{ readonly message: M; readonly error: unknown }>;
  readonly acked: number;
  constructor(failures: ReadonlyArray<{ readonly message: M; readonly error: unknown }>, acked: number) {
    const first = failures[0]?.error;
    super(
      'ERR_ACK_FAILED',
      `${failures.length} of ${failures.length + acked} messages not acked` +
        (first instanceof Error ? `; first: ${first.message}` : ''),
      {
        retriable: failures.every((f) => f.error instanceof RocketMQError && f.error.retriable),
        cause: first,
      },
    );
    this.failures = failures;
    this.acked = acked;
  }
}

/** A bad SQL92 expression; the broker answers SUBSCRIPTION_PARSE_FAILED (23). */
export class FilterExpressionError extends InvalidArgumentError {
  readonly expression: string;
  constructor(expression: string, message: string) {
    super('expression', `invalid SQL92 filter ${JSON.stringify(expression)}: ${message}`);
    this.expression = expression;
  }
}
