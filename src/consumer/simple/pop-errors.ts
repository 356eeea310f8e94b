/** Errors of POP consumption (SimpleConsumer). */
import { RocketMQError, type RocketMQErrorOptions } from '../../errors.js';

/** The broker does not speak POP (a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED): POP needs RocketMQ 5. */
export class PopNotSupportedError extends RocketMQError {
  readonly address: string;
  constructor(brokerName: string, address: string, options: RocketMQErrorOptions = {}) {
    super(
      'ERR_POP_NOT_SUPPORTED',
      `broker ${brokerName} at ${address} does not support POP (REQUEST_CODE_NOT_SUPPORTED): ` +
        'SimpleConsumer needs a RocketMQ 5.x broker; use PushConsumer or LitePullConsumer with RocketMQ 4.x',
      { ...options, retriable: false },
    );
    this.address = address;
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
