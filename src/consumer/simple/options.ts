/**
 * SimpleConsumerOptions: the POP consumer's own settings (RocketMQ 5 `SimpleConsumer` names), one
 * frozen defaults object and one validator; the shared client options and the key check are
 * client/client-options.ts's (the trace pair is refused: no POP consume traces are written).
 */
import {
  CLIENT_DEFAULTS,
  resolveClientOptions,
  type ClientOptions,
  type ResolvedClientOptions,
} from '../../client/client-options.js';
import { InvalidArgumentError } from '../../errors.js';
import { checkBoolean, checkInt, checkObject, keyList, MAX_INT, stripUndefined } from '../../options.js';
import { checkGroup, checkTopic, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { buildSubscriptionData } from '../core/subscription.js';
import { POP_MAX_MSG_NUMS } from '../../protocol/headers/pop.js';

/** The POP consumer's own options; the shared ones are `ClientOptions` (client/client-options.ts). */
export interface SimpleConsumerOptions extends ClientOptions {
  /** Consumer group; required. */
  consumerGroup: string;
  /** Topic → tag expression (`'*'`, `'TagA || TagB'`); at least one. */
  subscriptions: Readonly<Record<string, string>>;
  /** Long-polling time of one receive (POP `pollTime`), ms. @default 30000 */
  awaitDuration?: number;
  /** Invisible time of received messages when `receive` names none, ms (Java `popInvisibleTime`). @default 60000 */
  invisibleDuration?: number;
  /**
   * Orderly POP (a FIFO group, POP `order=true`): a queue's next message is delivered only after
   * the previous ones were acked or their invisible time ended. Unset, each broker's subscription
   * group decides, as the 5.x Proxy does: FIFO when its `consumeMessageOrderly` is true (asked
   * with GET_SUBSCRIPTIONGROUP_CONFIG; false when the broker cannot say). An explicit value wins.
   * @default the group's consumeMessageOrderly
   */
  fifo?: boolean;
  /**
   * Redeliveries before a message goes to `%DLQ%<group>`. A 5.x broker leaves the DLQ to its gRPC
   * proxy, so over remoting the consumer does what the proxy does: a received message with
   * reconsumeTimes above this is sent back with delay level −1 (DLQ) and acked instead of returned
   * (the embedded broker already moves it at its own `maxReconsumeTimes`). @default 16
   */
  maxReconsumeTimes?: number;
  /**
   * POP requests this consumer keeps in flight at most (concurrent `receive` calls and POPs parked
   * by aborted ones); a `receive` beyond it waits for one to be answered. 32 rather than 16: a
   * drain with 32 receivers ran about 1.4x the rate of 16 on the embedded cluster (each POP is a
   * round trip for at most 32 messages), at up to 1,024 messages invisible at once. @default 32
   */
  maxInFlightPops?: number;
}

export const SIMPLE_CONSUMER_DEFAULTS = Object.freeze({
  ...CLIENT_DEFAULTS,
  awaitDuration: 30_000,
  invisibleDuration: 60_000,
  maxReconsumeTimes: 16,
  maxInFlightPops: 32,
});

/** The longest invisible duration (the 5.x proxy's `maxInvisibleTimeMills`, 12 h). */
export const MAX_INVISIBLE_DURATION_MS = 12 * 3600 * 1000;

export interface ResolvedSimpleConsumerOptions extends ResolvedClientOptions {
  consumerGroup: string;
  subscriptions: Readonly<Record<string, string>>;
  awaitDuration: number;
  invisibleDuration: number;
  /** Undefined: the group's `consumeMessageOrderly` on each broker decides. */
  fifo: boolean | undefined;
  maxReconsumeTimes: number;
  maxInFlightPops: number;
}

/** The POP consumer's own option names (the shared ones are client-options.ts's). */
export const SIMPLE_CONSUMER_OPTION_NAMES = keyList<Omit<SimpleConsumerOptions, keyof ClientOptions>>({
  consumerGroup: true,
  subscriptions: true,
  awaitDuration: true,
  invisibleDuration: true,
  fifo: true,
  maxReconsumeTimes: true,
  maxInFlightPops: true,
});

/** A duration in ms: a non-negative integer (`min` and up). InvalidArgumentError naming `field`. */
export function checkDuration(field: string, value: unknown, min = 0, max = MAX_INT): number {
  return checkInt(field, value, min, max);
}

export function resolveSimpleConsumerOptions(options: SimpleConsumerOptions): ResolvedSimpleConsumerOptions {
  const shared = resolveClientOptions(options, {
    client: 'SimpleConsumer',
    own: SIMPLE_CONSUMER_OPTION_NAMES,
  });
  const o = { ...SIMPLE_CONSUMER_DEFAULTS, ...stripUndefined(options) } as SimpleConsumerOptions &
    typeof SIMPLE_CONSUMER_DEFAULTS;
  const groupProblem = checkGroup(o.consumerGroup, 'consumerGroup');
  if (groupProblem !== undefined) throw new InvalidArgumentError('consumerGroup', groupProblem);
  checkObject('subscriptions', o.subscriptions);
  const subscriptions: Record<string, string> = {};
  for (const [topic, expression] of Object.entries(o.subscriptions)) {
    const problem = checkTopic(topic, 'subscriptions');
    if (problem !== undefined) throw new InvalidArgumentError('subscriptions', problem);
    if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX))
      throw new InvalidArgumentError('subscriptions', 'retry topics are read by the broker itself');
    if (typeof expression !== 'string')
      throw new InvalidArgumentError('subscriptions', `${topic}: expression must be a tag expression string`);
    buildSubscriptionData(topic, expression); // a bad expression fails here, not on the first receive
    subscriptions[topic] = expression.trim() === '' ? '*' : expression;
  }
  if (Object.keys(subscriptions).length === 0)
    throw new InvalidArgumentError('subscriptions', 'must name at least one topic');
  return {
    ...shared,
    consumerGroup: o.consumerGroup,
    subscriptions: Object.freeze(subscriptions),
    awaitDuration: checkDuration('awaitDuration', o.awaitDuration),
    invisibleDuration: checkDuration('invisibleDuration', o.invisibleDuration, 1, MAX_INVISIBLE_DURATION_MS),
    fifo: o.fifo === undefined ? undefined : checkBoolean('fifo', o.fifo),
    maxReconsumeTimes: checkInt('maxReconsumeTimes', o.maxReconsumeTimes, 0, 16 * 1024),
    maxInFlightPops: checkInt('maxInFlightPops', o.maxInFlightPops, 1, 1024),
  };
}

/** receive()'s arguments; InvalidArgumentError naming the bad one. */
export function checkReceiveArgs(maxMessages: unknown, invisibleDurationMs: unknown): void {
  if (
    typeof maxMessages !== 'number' ||
    !Number.isInteger(maxMessages) ||
    maxMessages < 1 ||
    maxMessages > POP_MAX_MSG_NUMS
  )
    throw new InvalidArgumentError(
      'maxMessages',
      `must be an integer in [1, ${POP_MAX_MSG_NUMS}], got ${String(maxMessages)}`,
    );
  checkInvisibleDuration(invisibleDurationMs);
}

/** An invisible duration: 1 ms to 12 h (the 5.x proxy's `maxInvisibleTimeMills`). */
export function checkInvisibleDuration(invisibleDurationMs: unknown): void {
  checkDuration('invisibleDurationMs', invisibleDurationMs, 1, MAX_INVISIBLE_DURATION_MS);
}
