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
 * - exhaustion rejects with SendFailedError listing every attempt;
 * - with a hedger (hedge.ts), an attempt overdue by far more than its broker's recent latency
 *   is re-sent to another broker and the first success wins (not for oneway or fixed-queue sends).
 * - an aborted send (its caller's `signal`) stops at once: not retried, nothing left waiting,
 *   and the abort reported to the strategy as a client failure of no latency (it says nothing
 *   about the broker);
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
  SendFailedError,
  SendResultUnknownError,
  type SendAttempt,
  BrokerNotFoundError,
  NotStoreOkError,
  TopicNotFoundError,
} from '../errors.js';
import { AbortError } from '../errors/abort.js';
import { raceAbort, throwIfAborted } from '../remoting/abort.js';
import type { Logger } from '../observability/logger.js';
import { ResponseCode } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import type { ConnectionPool } from '../remoting/pool.js';
import type { MessageQueue } from '../client/route.js';
import {
  brokerToAvoid,
  chooseQueue,
  type FailureKind,
  type LatencyFaultStrategy,
} from './fault/latency-fault-tolerance.js';
import type { PreparedMessage } from './message.js';
import type { SendHedger } from './hedge.js';
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
  /** A pool request (the master's); `signal` is the caller's, given up with AbortError. */
  request: ConnectionPool['request'];
  oneway(address: string, cmd: RemotingCommand, timeoutMs: number, signal?: AbortSignal): Promise<void>;
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
  /** Hedges overdue attempts (`hedgeSends`); undefined = off. */
  hedger?: SendHedger | undefined;
  /** Time source of the budget and the latencies (tests inject one). @default Date.now */
  clock?: Clock | undefined;
}

/**
 * What a traced send hears of its attempts (send-telemetry.ts): every attempt as it settles
 * (`error` undefined for a success) and every hedge as it starts. Absent for an untraced send.
 */
export interface SendObserver {
  attempt(mq: MessageQueue, address: string | undefined, latencyMs: number, error: unknown): void;
  hedge(from: MessageQueue, to: MessageQueue): void;
}

/** Codes whose response means the broker stored the message. */
const STORED_CODES: ReadonlySet<number> = new Set([
  ResponseCode.SUCCESS,
  ResponseCode.FLUSH_DISK_TIMEOUT,
  ResponseCode.FLUSH_SLAVE_TIMEOUT,
  ResponseCode.SLAVE_NOT_AVAILABLE,
]);

/**
 * The code of a failure the broker answered with, which the retry list decides on: any
 * BrokerResponseError, and TOPIC_NOT_EXIST (a TopicNotFoundError from errorFromResponse). An ACL
 * refusal is not here: no other broker of the cluster would accept the send either.
 */
function failedResponseCode(err: unknown): number | undefined {
  if (err instanceof BrokerResponseError) return err.responseCode;
  if (err instanceof TopicNotFoundError) return err.responseCode;
  return undefined;
}

/** Maps an attempt's error to what it says about the broker. */
export function classifyFailure(err: unknown, retryCodes: ReadonlySet<number>): FailureKind {
  // The broker answered (and stored): nothing wrong with it, only with this response.
  if (err instanceof SendResultUnknownError) return 'rejected';
  const answered = failedResponseCode(err);
  if (answered !== undefined) return retryCodes.has(answered) ? 'broker' : 'rejected';
  if (err instanceof TimeoutError || err instanceof BackpressureError) return 'timeout';
  if (err instanceof ConnectError || err instanceof ConnectionClosedError || err instanceof ProtocolError)
    return 'transport';
  return 'client';
}

/** Whether another attempt may help: the broker code list for broker answers, else the error's own flag. */
function shouldRetry(err: unknown, retryCodes: ReadonlySet<number>): boolean {
  const answered = failedResponseCode(err);
  if (answered !== undefined) return retryCodes.has(answered);
  return err instanceof RocketMQError && err.retriable;
}

/** What one attempt returns to the loop. */
interface AttemptResult {
  result: SendResult | undefined;
  address: string;
  latency: number;
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}

/**
 * `interpretSendResponse`, except that a stored-status response that cannot be read becomes
 * SendResultUnknownError (never retried: the message is most likely stored). Errors thrown by
 * `request` itself retry only when flagged `retriable` (a closed connection does; a
 * ProtocolError does not).
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

/** A selected-queue send reports nothing to the strategy, as Java's `sendSelectImpl`. */
const NOT_REPORTED: Pick<LatencyFaultStrategy, 'onSuccess' | 'onFailure'> = {
  onSuccess: () => undefined,
  onFailure: () => undefined,
};

/**
 * Sends `p` with retries; resolves with the result (undefined for oneway) or rejects. With
 * `select` (queue-select.ts) the one attempt goes to the queue it picks: no retry elsewhere.
 * `signal` aborts the whole send (AbortError).
 */
export async function runSend(
  p: PreparedMessage,
  oneway: boolean,
  transport: SendTransport,
  strategy: LatencyFaultStrategy,
  s: SendLoopSettings,
  select?: (tp: TopicPublishInfo) => MessageQueue,
  signal?: AbortSignal,
  observer?: SendObserver,
): Promise<SendResult | undefined> {
  throwIfAborted(signal, 'the send');
  const report = select === undefined ? strategy : NOT_REPORTED;
  const clock = s.clock ?? Date.now;
  const deadline = Deadline.after(s.sendMsgTimeout, clock);
  const started = deadline.at - s.sendMsgTimeout;
  const attempts: SendAttempt[] = [];

  let tp: TopicPublishInfo;
  try {
    // Cached views come back synchronously: no extra promise on the hot path.
    const view = transport.publishInfo(p.topic, deadline);
    // The lookup may be shared with other sends: an abort stops this send's wait only.
    tp = view instanceof Promise ? await raceAbort(view, signal, 'the send') : view;
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

  const total = oneway || select !== undefined ? 1 : 1 + s.retryTimesWhenSendFailed;
  let last: string | undefined;
  let notOk: SendResult | undefined;
  let lastError: unknown;
  let timedOut = false;
  let hedged: MessageQueue | undefined;

  /**
   * One attempt on `mq`: reports its outcome to the strategy (and the hedger's latency window)
   * and lists a failure in `attempts` itself, since a hedged attempt may settle after the send.
   */
  const attemptOn = async (mq: MessageQueue, cap: number): Promise<AttemptResult> => {
    const attemptStart = clock();
    let address: string | undefined;
    try {
      address = transport.brokerAddress(mq.brokerName);
      if (address === undefined)
        throw new BrokerNotFoundError(mq.brokerName, 'has no master address in the route', {
          retriable: true,
        });
      if (p.deliverAt !== undefined) {
        const pending = transport.checkTimer?.(mq.brokerName, address, p.deliverAt, cap);
        if (pending !== undefined) await raceAbort(pending, signal, 'the send');
      }
      const cmd = buildSendRequest(p, mq, s, attemptStart);
      if (oneway) {
        await transport.oneway(address, cmd, cap, signal);
        const written = clock() - attemptStart;
        report.onSuccess(mq.brokerName, written);
        observer?.attempt(mq, address, written, undefined);
        return { result: undefined, address, latency: written };
      }
      const response = await transport.request(address, cmd, cap, signal);
      const result = readSendResponse(response, p, mq, address, s.retryResponseCodes);
      const latency = clock() - attemptStart;
      report.onSuccess(mq.brokerName, latency);
      s.hedger?.record(mq.brokerName, latency);
      observer?.attempt(mq, address, latency, undefined);
      return { result, address, latency };
    } catch (err) {
      const latency = clock() - attemptStart;
      if (err instanceof AbortError) report.onFailure(mq.brokerName, 0, 'client', err);
      else report.onFailure(mq.brokerName, latency, classifyFailure(err, s.retryResponseCodes), err);
      attempts.push({
        brokerName: mq.brokerName,
        address,
        queueId: mq.queueId,
        error: toError(err),
        latencyMs: latency,
      });
      observer?.attempt(mq, address, latency, err);
      throw err;
    }
  };

  // A hedge is an early retry that does not cancel its attempt: it uses one of the attempts.
  let hedges = 0;
  for (let i = 0; i + hedges < total; i++) {
    const remaining = deadline.remaining();
    if (remaining <= 0) {
      timedOut = true;
      break;
    }
    // From here on the strategy counts this attempt: every path reports back to it.
    const index = i + hedges;
    let mq = select === undefined ? chooseQueue(strategy, tp, last, index) : select(tp);
    last = mq.brokerName;
    const isLast = index === total - 1;
    const cap = !isLast && s.sendAttemptTimeout > 0 ? Math.min(remaining, s.sendAttemptTimeout) : remaining;
    try {
      let outcome: AttemptResult;
      const hedger = s.hedger;
      // A selected queue (ordering, sharding) must never be raced on another broker.
      if (hedger === undefined || oneway || select !== undefined || isLast) {
        outcome = await attemptOn(mq, cap);
      } else {
        const primaryMq = mq;
        const raced = await hedger.race(
          mq.brokerName,
          attemptOn(mq, cap),
          () => {
            // Only another broker helps; the strategy has just been told to avoid this one.
            if (index + 1 >= total || brokerToAvoid(tp, primaryMq.brokerName) === undefined) return undefined;
            hedges++;
            const alt = chooseQueue(strategy, tp, primaryMq.brokerName, index + 1);
            const left = deadline.remaining();
            const altIsLast = index + 1 === total - 1;
            const altCap =
              !altIsLast && s.sendAttemptTimeout > 0 ? Math.min(left, s.sendAttemptTimeout) : left;
            hedged = alt;
            observer?.hedge(primaryMq, alt);
            return { brokerName: alt.brokerName, promise: attemptOn(alt, Math.max(1, altCap)) };
          },
          p,
        );
        outcome = raced.value;
        if (raced.hedgeWon && hedged !== undefined) mq = hedged;
      }
      const result = outcome.result;
      if (result === undefined) return undefined;
      if (result.status !== 'SEND_OK' && s.retryAnotherBrokerWhenNotStoreOK && !isLast) {
        notOk = result;
        attempts.push({
          brokerName: mq.brokerName,
          address: outcome.address,
          queueId: mq.queueId,
          error: new NotStoreOkError(result.status),
          latencyMs: outcome.latency,
        });
        s.logger.warn('stored but not SEND_OK, retrying on another broker', {
          status: result.status,
          broker: mq.brokerName,
        });
        continue;
      }
      return result;
    } catch (err) {
      lastError = err;
      if (err instanceof AbortError) throw err;
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
