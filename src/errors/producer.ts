/** Producer errors: sends that failed, selected-queue sends, timer messages, recall, request-reply. */
import { RocketMQError, type QueueRef } from './base.js';

/** One try of a send: where it went and how it ended. */
export interface SendAttempt {
  /** 'route' for the route lookup before any broker was chosen (brokerName '' and queueId -1 then). */
  stage?: 'route' | undefined;
  brokerName: string;
  /** Broker address, when known. */
  address?: string | undefined;
  queueId: number;
  /** The failure (or, for a non-SEND_OK status that was retried, a description of it). */
  error: Error;
  latencyMs: number;
}

/** Every attempt of a send failed, or the budget ran out. `attempts` lists each try. */
export class SendFailedError extends RocketMQError {
  readonly attempts: readonly SendAttempt[];
  readonly topic: string;
  readonly elapsedMs: number;
  constructor(
    topic: string,
    attempts: readonly SendAttempt[],
    elapsedMs: number,
    reason: string,
    options: { cause?: unknown } = {},
  ) {
    const detail = attempts
      .map(
        (a) =>
          `${a.stage === 'route' ? 'route lookup' : `${a.brokerName}/${a.queueId}`} after ${a.latencyMs} ms: ${a.error.message}`,
      )
      .join('; ');
    super(
      'ERR_SEND_FAILED',
      `send to ${topic} failed after ${attempts.length} attempt(s) in ${elapsedMs} ms: ${reason}${detail ? ` [${detail}]` : ''}`,
      {
        retriable: true,
        cause: options.cause ?? attempts[attempts.length - 1]?.error,
      },
    );
    this.attempts = attempts;
    this.topic = topic;
    this.elapsedMs = elapsedMs;
  }
}

/**
 * The broker answered with a stored status (SEND_OK, FLUSH_*_TIMEOUT, SLAVE_NOT_AVAILABLE) but
 * the response could not be read (no msgId/queueId/queueOffset). The message is most likely
 * stored, so it is not sent again (that would store a duplicate); `cause` is the decode error.
 */
export class SendResultUnknownError extends RocketMQError {
  readonly topic: string;
  readonly address: string;
  readonly responseCode: number;
  constructor(topic: string, address: string, responseCode: number, options: { cause?: unknown } = {}) {
    const why = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super(
      'ERR_SEND_RESULT_UNKNOWN',
      `send to ${topic}: ${address} answered code ${responseCode} (stored) but the response is unreadable${why}; not retried, to avoid a duplicate`,
      { retriable: false, ...options },
    );
    this.topic = topic;
    this.address = address;
    this.responseCode = responseCode;
  }
}

/**
 * A send stored with a non-SEND_OK status (FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT,
 * SLAVE_NOT_AVAILABLE) and `retryAnotherBrokerWhenNotStoreOK` on: the attempt is retried elsewhere
 * and this error is what `SendFailedError.attempts` records for it.
 */
export class NotStoreOkError extends RocketMQError {
  constructor(status: string) {
    super('ERR_NOT_STORE_OK', `stored with status ${status}; retrying on another broker`, {
      retriable: true,
    });
  }
}

/** A selected-queue send failed; it was not moved to another queue (that would break the order). */
export class QueueSendFailedError extends RocketMQError {
  readonly queue: QueueRef;
  constructor(queue: QueueRef, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'ERR_QUEUE_SEND_FAILED',
      `send to the selected queue ${queue.topic}/${queue.brokerName}/${queue.queueId} failed (not moved to another queue, to keep the order): ${why}`,
      { retriable: cause instanceof RocketMQError && cause.retriable, cause },
    );
    this.queue = queue;
  }
}

/** The broker cannot deliver timer messages at their time (4.9.x, or 5.x with timerWheelEnable=false). */
export class TimerNotSupportedError extends RocketMQError {
  readonly brokerName: string;
  readonly address: string;
  constructor(brokerName: string, address: string, reason: string) {
    super(
      'ERR_TIMER_NOT_SUPPORTED',
      `broker ${brokerName} (${address}) cannot honour a timer message: ${reason}; it would deliver it at once`,
      { retriable: false },
    );
    this.brokerName = brokerName;
    this.address = address;
  }
}

/**
 * [5.x] The broker refused RECALL_MESSAGE because recall is off there (NO_PERMISSION "recall
 * failed, operation is forbidden"): Apache brokers ship with `recallMessageEnable=false`. Never
 * retriable: the same broker says the same until its setting changes.
 */
export class RecallDisabledError extends RocketMQError {
  readonly brokerName: string;
  readonly address: string;
  /** The broker's remark, verbatim. */
  readonly remark: string | undefined;
  constructor(brokerName: string, address: string, remark: string | undefined) {
    super(
      'ERR_RECALL_DISABLED',
      `broker ${brokerName} (${address}) has message recall turned off${remark ? ` (${remark})` : ''}; set recallMessageEnable=true on it (mqadmin updateBrokerConfig -k recallMessageEnable -v true)`,
      { retriable: false },
    );
    this.brokerName = brokerName;
    this.address = address;
    this.remark = remark;
  }
}

/**
 * [5.x] The broker refused the recall handle (ILLEGAL_OPERATION): unreadable, for another topic
 * or broker, or its message's time has come (delivered already) or lies beyond
 * `timerMaxDelaySec`. `remark` is the broker's reason. Never retriable.
 */
export class RecallRejectedError extends RocketMQError {
  readonly topic: string;
  readonly address: string;
  readonly remark: string | undefined;
  constructor(topic: string, address: string, remark: string | undefined) {
    super('ERR_RECALL_REJECTED', `recall on ${topic} refused by ${address}: ${remark ?? 'no reason given'}`, {
      retriable: false,
    });
    this.topic = topic;
    this.address = address;
    this.remark = remark;
  }
}

/** No reply within the request's timeout (Java `RequestTimeoutException`, client code 10006). */
export class RequestTimeoutError extends RocketMQError {
  readonly correlationId: string;
  readonly timeoutMs: number;
  constructor(topic: string, correlationId: string, timeoutMs: number) {
    super(
      'ERR_REQUEST_TIMEOUT',
      `no reply to the request on ${topic} (correlation id ${correlationId}) within ${timeoutMs} ms`,
      { retriable: true },
    );
    this.correlationId = correlationId;
    this.timeoutMs = timeoutMs;
  }
}
