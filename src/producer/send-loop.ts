/**
 * Java's `DefaultMQProducerImpl.sendDefaultImpl`, made right:
 * - `sendMsgTimeout` is one budget for the whole call: route lookup, connects and every attempt;
 * - every attempt but the last is capped by `sendAttemptTimeout`, so a hung broker cannot eat
 *   the whole budget and leave no retry;
 * - a retry never goes to the broker that just failed when another broker exists, whatever the
 *   strategy picked (Java 4.9 forgets this with fault tolerance on);
 * - broker codes in `retryResponseCodes` and errors flagged `retriable` retry; anything else
 *   rejects at once (a producer shut down mid-send as SendFailedError with its attempts);
 * - `retryAnotherBrokerWhenNotStoreOK` retries a stored-but-not-OK status elsewhere and returns
 *   the last such result if no attempt gets SEND_OK;
 * - exhaustion rejects with SendFailedError listing every attempt.
 * I/O goes through `SendTransport` and time through `clock`, so this file is tested without
 * sockets or wall time.
 */
import {
  BackpressureError,
  BrokerResponseError,
  ConnectError,
  ConnectionClosedError,
  IllegalStateError,
  ProtocolError,
  RocketMQError,
  TimeoutError,
} from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { ResponseCode } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import type { MessageQueue } from '../client/route.js';
import { SendFailedError, SendResultUnknownError, type SendAttempt } from './errors.js';
import { chooseQueue, type FailureKind, type LatencyFaultStrategy } from './fault/latency-fault-tolerance.js';
import type { PreparedMessage } from './message.js';
import { buildSendRequest, type RequestSettings } from './request-builder.js';
import { interpretSendResponse, type SendResult } from './send-result.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import { Deadline, type Clock } from '../client/deadline.js';

export interface SendTransport {
  /**
   * Publish view of the (wire) topic: cache, NameServer, then createTopicKey; the view itself
   * when cached. Settles by `deadline` (TimeoutError).
   */
  publishInfo(topic: string, deadline: Deadline): TopicPublishInfo | Promise<TopicPublishInfo>;
  /** Master address of a broker, from the routes. */
  brokerAddress(brokerName: string): string | undefined;
  request(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<RemotingCommand>;
  oneway(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<void>;
  /**
   * For a timer message (`p.deliverAt`): settles when the broker honours it, else rejects
   * (TimerNotSupportedError); undefined when already known to be fine. Absent = no check.
   */
  checkTimer?(
    brokerName: string,
    address: string,
    deliverAt: number,
    timeoutMs: number,
  ): Promise<void> | undefined;
}

export interface SendLoopSettings extends RequestSettings {
  sendMsgTimeout: number;
  retryTimesWhenSendFailed: number;
  retryAnotherBrokerWhenNotStoreOK: boolean;
  retryResponseCodes: ReadonlySet<number>;
  /** Cap of every attempt but the last; 0 = off. */
  sendAttemptTimeout: number;
  logger: Logger;
  /** Time source of the budget and the latencies (tests inject one). @default Date.now */
  clock?: Clock | undefined;
}

/** Codes whose response means the broker stored the message. */
const STORED_CODES: ReadonlySet<number> = new Set([
  ResponseCode.SUCCESS,
  ResponseCode.FLUSH_DISK_TIMEOUT,
  ResponseCode.FLUSH_SLAVE_TIMEOUT,
  ResponseCode.SLAVE_NOT_AVAILABLE,
]);

/** Maps an attempt's error to what it says about the broker. */
export function classifyFailure(err: unknown, retryCodes: ReadonlySet<number>): FailureKind {
  // The broker answered (and stored): nothing wrong with it, only with this response.
  if (err instanceof SendResultUnknownError) return 'rejected';
  if (err instanceof BrokerResponseError) return retryCodes.has(err.responseCode) ? 'broker' : 'rejected';
  if (err instanceof TimeoutError || err instanceof BackpressureError) return 'timeout';
  if (err instanceof ConnectError || err instanceof ConnectionClosedError || err instanceof ProtocolError)
    return 'transport';
  return 'client';
}

/** Whether another attempt may help: the broker code list for broker answers, else the error's own flag. */
function shouldRetry(err: unknown, retryCodes: ReadonlySet<number>): boolean {
  if (err instanceof BrokerResponseError) return retryCodes.has(err.responseCode);
  return err instanceof RocketMQError && err.retriable;
}

class BrokerNotFoundError extends RocketMQError {
  constructor(brokerName: string) {
    super('ERR_BROKER_NOT_FOUND', `the broker ${brokerName} has no master address in the route`, {
      retriable: true,
    });
  }
}

class NotStoreOkError extends RocketMQError {
  constructor(status: string) {
    super('ERR_NOT_STORE_OK', `stored with status ${status}; retrying on another broker`, {
      retriable: true,
    });
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * `interpretSendResponse`, except that a stored-status response that cannot be read becomes
 * SendResultUnknownError (never retried: the message is most likely stored). A ProtocolError
 * from the connection itself (malformed frame, closed) is thrown by `request` and still retries.
 */
function readSendResponse(
  response: RemotingCommand,
  p: PreparedMessage,
  mq: MessageQueue,
  address: string,
  retryCodes: ReadonlySet<number>,
): SendResult {
  try {
    return interpretSendResponse(response, p, mq, address, retryCodes);
  } catch (err) {
    if (err instanceof ProtocolError && STORED_CODES.has(response.code))
      throw new SendResultUnknownError(p.userTopic, address, response.code, { cause: err });
    throw err;
  }
}

function sendFailed(
  p: PreparedMessage,
  attempts: SendAttempt[],
  elapsedMs: number,
  reason: string,
  cause: unknown,
): SendFailedError {
  return new SendFailedError(p.userTopic, attempts, elapsedMs, reason, { cause });
}

/** Sends `p` with retries; resolves with the result (undefined for oneway) or rejects. */
export async function runSend(
  p: PreparedMessage,
  oneway: boolean,
  transport: SendTransport,
  strategy: LatencyFaultStrategy,
  s: SendLoopSettings,
): Promise<SendResult | undefined> {
  const clock = s.clock ?? Date.now;
  const deadline = Deadline.after(s.sendMsgTimeout, clock);
  const started = deadline.at - s.sendMsgTimeout;
  const attempts: SendAttempt[] = [];

  let tp: TopicPublishInfo;
  try {
    // Cached views come back synchronously: no extra promise on the hot path.
    const view = transport.publishInfo(p.topic, deadline);
    tp = view instanceof Promise ? await view : view;
  } catch (err) {
    // A lookup that ran out of time, or a producer that shut down meanwhile, is this send's
    // failure, listed as its one attempt; route errors (unknown topic) propagate as they are.
    if (!(err instanceof TimeoutError || err instanceof IllegalStateError)) throw err;
    attempts.push({ stage: 'route', brokerName: '', queueId: -1, error: err, latencyMs: clock() - started });
    throw sendFailed(
      p,
      attempts,
      clock() - started,
      err instanceof TimeoutError ? 'the route lookup timed out' : err.message,
      err,
    );
  }

  const total = oneway ? 1 : 1 + s.retryTimesWhenSendFailed;
  let last: string | undefined;
  let notOk: SendResult | undefined;
  let lastError: unknown;
  let timedOut = false;

  for (let i = 0; i < total; i++) {
    const remaining = deadline.remaining();
    if (remaining <= 0) {
      timedOut = true;
      break;
    }
    // From here on the strategy counts this attempt: every path reports back to it.
    const mq = chooseQueue(strategy, tp, last, i);
    last = mq.brokerName;
    const attemptStart = clock();
    const isLast = i === total - 1;
    const cap = !isLast && s.sendAttemptTimeout > 0 ? Math.min(remaining, s.sendAttemptTimeout) : remaining;
    let address: string | undefined;
    try {
      address = transport.brokerAddress(mq.brokerName);
      if (address === undefined) throw new BrokerNotFoundError(mq.brokerName);
      if (p.deliverAt !== undefined) {
        const pending = transport.checkTimer?.(mq.brokerName, address, p.deliverAt, cap);
        if (pending !== undefined) await pending;
      }
      const cmd = buildSendRequest(p, mq, s, attemptStart);
      if (oneway) {
        await transport.oneway(address, cmd, cap);
        strategy.onSuccess(mq.brokerName, clock() - attemptStart);
        return undefined;
      }
      const response = await transport.request(address, cmd, cap);
      const result = readSendResponse(response, p, mq, address, s.retryResponseCodes);
      const latency = clock() - attemptStart;
      strategy.onSuccess(mq.brokerName, latency);
      if (result.status !== 'SEND_OK' && s.retryAnotherBrokerWhenNotStoreOK && !isLast) {
        notOk = result;
        attempts.push({
          brokerName: mq.brokerName,
          address,
          queueId: mq.queueId,
          error: new NotStoreOkError(result.status),
          latencyMs: latency,
        });
        s.logger.warn('stored but not SEND_OK, retrying on another broker', {
          status: result.status,
          broker: mq.brokerName,
        });
        continue;
      }
      return result;
    } catch (err) {
      const latency = clock() - attemptStart;
      const kind = classifyFailure(err, s.retryResponseCodes);
      strategy.onFailure(mq.brokerName, latency, kind, err);
      attempts.push({
        brokerName: mq.brokerName,
        address,
        queueId: mq.queueId,
        error: toError(err),
        latencyMs: latency,
      });
      lastError = err;
      if (!shouldRetry(err, s.retryResponseCodes)) {
        if (notOk !== undefined) return notOk;
        // The producer shut down under this send: say so with the attempts made.
        if (err instanceof IllegalStateError)
          throw sendFailed(p, attempts, clock() - started, err.message, err);
        throw err;
      }
      s.logger.warn('send attempt failed, trying again', {
        broker: mq.brokerName,
        queueId: mq.queueId,
        latencyMs: latency,
        error: toError(err).message,
      });
    }
  }
  if (notOk !== undefined) return notOk;
  const reason = timedOut
    ? `sendMsgTimeout ${s.sendMsgTimeout} ms exhausted`
    : `all ${attempts.length} attempt(s) failed`;
  throw sendFailed(p, attempts, clock() - started, reason, lastError);
}
