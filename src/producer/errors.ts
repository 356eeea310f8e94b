/** Producer errors; all extend RocketMQError (src/errors.ts). */
import { RocketMQError } from '../errors.js';

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
