/**
 * Java's `DefaultMQProducerImpl.sendDefaultImpl`, made right:
 * - `sendMsgTimeout` is one budget for the whole call: route lookup, connects and every attempt;
 * - every attempt but the last is capped by `sendAttemptTimeout`, so a hung broker cannot eat
 *   the whole budget and leave no retry;
 * - a retry never goes to the broker that just failed when another broker exists, whatever the
 *   strategy picked (Java 4.9 forgets this with fault tolerance on);
 * - transport failures and codes in `retryResponseCodes` retry; other codes reject at once;
 * - `retryAnotherBrokerWhenNotStoreOK` retries a stored-but-not-OK status elsewhere and returns
 *   the last such result if no attempt gets SEND_OK;
 * - exhaustion rejects with SendFailedError listing every attempt.
 * I/O goes through `SendTransport`, so this file is tested without sockets.
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
import type { FailureKind, LatencyFaultStrategy } from './fault/latency-fault-tolerance.js';
import type { PreparedMessage } from './message.js';
import { buildSendRequest, type RequestSettings } from './request-builder.js';
import { interpretSendResponse, type SendResult } from './send-result.js';
import type { TopicPublishInfo } from '../client/topic-publish-info.js';
import { Deadline } from '../client/deadline.js';

export interface SendTransport {
  /** Publish view of the (wire) topic: cache, NameServer, then createTopicKey. Settles by `deadline`. */
  publishInfo(topic: string, deadline: Deadline): TopicPublishInfo | Promise<TopicPublishInfo>;
  /** Master address of a broker, from the routes. */
  brokerAddress(brokerName: string): string | undefined;
  request(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<RemotingCommand>;
  oneway(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<void>;
}

export interface SendLoopSettings extends RequestSettings {
  sendMsgTimeout: number;
  retryTimesWhenSendFailed: number;
  retryAnotherBrokerWhenNotStoreOK: boolean;
  retryResponseCodes: ReadonlySet<number>;
  /** Cap of every attempt but the last; 0 = off. */
  sendAttemptTimeout: number;
  logger: Logger;
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

/** Whether another attempt may help. */
function shouldRetry(err: unknown, retryCodes: ReadonlySet<number>): boolean {
  if (err instanceof BrokerResponseError) return retryCodes.has(err.responseCode);
  if (err instanceof IllegalStateError || err instanceof SendResultUnknownError) return false;
  if (err instanceof RocketMQError) return err.retriable || err instanceof ProtocolError;
  return false;
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

/** Picks the queue for an attempt, enforcing avoid-last-broker on top of the strategy. */
export function chooseQueue(
  strategy: LatencyFaultStrategy,
  tp: TopicPublishInfo,
  lastBrokerName: string | undefined,
  attempt: number,
): MessageQueue {
  const mq = strategy.select(tp, lastBrokerName, attempt);
  if (lastBrokerName !== undefined && mq.brokerName === lastBrokerName && tp.brokerNames.length > 1) {
    // Prefer brokers the strategy has not isolated; any other broker beats the last one.
    return tp.selectAvoiding(lastBrokerName, strategy.isAvailable?.bind(strategy));
  }
  return mq;
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

/**
 * The publish view within the send's deadline. A lookup that runs out of time is the send's
 * timeout: a SendFailedError listing the lookup as its one attempt (route errors such as an
 * unknown topic propagate as they are).
 */
async function lookupRoute(
  p: PreparedMessage,
  transport: SendTransport,
  deadline: Deadline,
  started: number,
): Promise<TopicPublishInfo> {
  try {
    return await transport.publishInfo(p.topic, deadline);
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
    const elapsed = Date.now() - started;
    const attempt: SendAttempt = {
      stage: 'route',
      brokerName: '',
      queueId: -1,
      error: err,
      latencyMs: elapsed,
    };
    throw new SendFailedError(p.userTopic, [attempt], elapsed, 'the route lookup timed out', { cause: err });
  }
}

/** Sends `p` with retries; resolves with the result (undefined for oneway) or rejects. */
export async function runSend(
  p: PreparedMessage,
  oneway: boolean,
  transport: SendTransport,
  strategy: LatencyFaultStrategy,
  s: SendLoopSettings,
): Promise<SendResult | undefined> {
  const started = Date.now();
  const deadline = started + s.sendMsgTimeout;
  const tp = await lookupRoute(p, transport, Deadline.after(s.sendMsgTimeout), started);
  const total = oneway ? 1 : 1 + s.retryTimesWhenSendFailed;
  const attempts: SendAttempt[] = [];
  let last: string | undefined;
  let notOk: SendResult | undefined;
  let lastError: unknown;
  let timedOut = false;

  for (let i = 0; i < total; i++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      timedOut = true;
      break;
    }
    const mq = chooseQueue(strategy, tp, last, i);
    last = mq.brokerName;
    const address = transport.brokerAddress(mq.brokerName);
    const attemptStart = Date.now();
    if (address === undefined) {
      const err = new BrokerNotFoundError(mq.brokerName);
      strategy.onFailure(mq.brokerName, 0, 'client', err);
      attempts.push({ brokerName: mq.brokerName, queueId: mq.queueId, error: err, latencyMs: 0 });
      lastError = err;
      continue;
    }
    const isLast = i === total - 1;
    const cap = !isLast && s.sendAttemptTimeout > 0 ? Math.min(remaining, s.sendAttemptTimeout) : remaining;
    const cmd = buildSendRequest(p, mq, s, attemptStart);
    try {
      if (oneway) {
        await transport.oneway(address, cmd, cap);
        strategy.onSuccess(mq.brokerName, Date.now() - attemptStart);
        return undefined;
      }
      const response = await transport.request(address, cmd, cap);
      const result = readSendResponse(response, p, mq, address, s.retryResponseCodes);
      const latency = Date.now() - attemptStart;
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
      const latency = Date.now() - attemptStart;
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
  const elapsed = Date.now() - started;
  const reason = timedOut
    ? `sendMsgTimeout ${s.sendMsgTimeout} ms exhausted`
    : `all ${attempts.length} attempt(s) failed`;
  throw new SendFailedError(p.userTopic, attempts, elapsed, reason, { cause: lastError });
}
