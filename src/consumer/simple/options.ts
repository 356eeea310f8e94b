/**
 * SimpleConsumerOptions: the POP consumer's settings (RocketMQ 5 `SimpleConsumer` names; client
 * settings as the push consumer's), one frozen defaults object and one validator that rejects
 * unknown keys.
 */
import {
  CLIENT_CONNECTION_OPTION_KEYS,
  resolveClientConnection,
  type ClientConnection,
  type ClientConnectionOptions,
} from '../../client/connection-options.js';
import { InvalidArgumentError } from '../../errors.js';
import { checkBoolean, checkInt, checkLogger, checkObject, keyList, withDefaults } from '../../options.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger.js';
import { checkGroup, checkTopic, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { parseNamesrvAddr } from '../../producer/options.js';
import { buildSubscriptionData } from '../core/subscription.js';

export interface SimpleConsumerOptions extends ClientConnectionOptions {
  /** Consumer group; required. */
  consumerGroup: string;
  /** NameServer addresses, `"host:port;host:port"` or an array. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[];
  /** Topic → tag expression (`'*'`, `'TagA || TagB'`); at least one. */
  subscriptions: Readonly<Record<string, string>>;
  /** Long-polling time of one receive (POP `pollTime`), ms. @default 30000 */
  awaitDuration?: number;
  /** Invisible time of received messages when `receive` names none, ms (Java `popInvisibleTime`). @default 60000 */
  invisibleDuration?: number;
  /**
   * Orderly POP (a FIFO group, POP `order=true`): a queue's next message is delivered only after
   * the previous ones were acked or their invisible time ended. @default false
   */
  fifo?: boolean;
  /**
   * Redeliveries before a message goes to `%DLQ%<group>`. A 5.x broker leaves the DLQ to its gRPC
   * proxy, so over remoting the consumer does what the proxy does: a received message with
   * reconsumeTimes above this is sent back with delay level −1 (DLQ) and acked instead of returned
   * (the embedded broker already moves it at its own `maxReconsumeTimes`). @default 16
   */
  maxReconsumeTimes?: number;
  /** Namespace prepended to topics and the group. @default undefined */
  namespace?: string;
  /** @default 'DEFAULT' */
  instanceName?: string;
  /** Route refresh period, ms. @default 30000 */
  pollNameServerInterval?: number;
  /** @default 30000 */
  heartbeatBrokerInterval?: number;
  /** Timeout of ack / change-invisible / route requests, ms. @default 3000 */
  mqClientApiTimeout?: number;
  /** @default silentLogger */
  logger?: Logger;
}

export const SIMPLE_CONSUMER_DEFAULTS = Object.freeze({
  awaitDuration: 30_000,
  invisibleDuration: 60_000,
  fifo: false,
  maxReconsumeTimes: 16,
  instanceName: 'DEFAULT',
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
  mqClientApiTimeout: 3000,
  logger: silentLogger as Logger,
});

export interface ResolvedSimpleConsumerOptions {
  /** ACL credentials and TLS (client/connection-options.ts). */
  connection: ClientConnection;
  consumerGroup: string;
  namesrvAddr: readonly string[];
  subscriptions: Readonly<Record<string, string>>;
  awaitDuration: number;
  invisibleDuration: number;
  fifo: boolean;
  maxReconsumeTimes: number;
  namespace: string | undefined;
  instanceName: string;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
  mqClientApiTimeout: number;
  logger: Logger;
}

const OPTION_NAMES = keyList<SimpleConsumerOptions>({
  ...CLIENT_CONNECTION_OPTION_KEYS,
  consumerGroup: true,
  namesrvAddr: true,
  subscriptions: true,
  awaitDuration: true,
  invisibleDuration: true,
  fifo: true,
  maxReconsumeTimes: true,
  namespace: true,
  instanceName: true,
  pollNameServerInterval: true,
  heartbeatBrokerInterval: true,
  mqClientApiTimeout: true,
  logger: true,
});

const MAX_INT = 2 ** 31 - 1;

/** A duration in ms: a non-negative integer (`min` and up). InvalidArgumentError naming `field`. */
export function checkDuration(field: string, value: unknown, min = 0): number {
  return checkInt(field, value, min, MAX_INT);
}

export function resolveSimpleConsumerOptions(options: SimpleConsumerOptions): ResolvedSimpleConsumerOptions {
  if (options === null || typeof options !== 'object')
    throw new InvalidArgumentError('options', 'must be an object');
  const o = withDefaults<SimpleConsumerOptions & typeof SIMPLE_CONSUMER_DEFAULTS>(
    SIMPLE_CONSUMER_DEFAULTS,
    options,
    OPTION_NAMES,
  );
  const groupProblem = checkGroup(o.consumerGroup, 'consumerGroup');
  if (groupProblem !== undefined) throw new InvalidArgumentError('consumerGroup', groupProblem);
  const namesrvRaw = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (namesrvRaw === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
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
  const namespace = o.namespace === '' ? undefined : o.namespace;
  if (namespace !== undefined && (typeof namespace !== 'string' || !/^[%|a-zA-Z0-9_-]+$/.test(namespace)))
    throw new InvalidArgumentError('namespace', 'must match [%|a-zA-Z0-9_-]+');
  if (typeof o.instanceName !== 'string' || o.instanceName.length === 0 || /[@\s]/.test(o.instanceName))
    throw new InvalidArgumentError('instanceName', 'must be a non-empty string without "@" or spaces');
  return {
    connection: resolveClientConnection(o),
    consumerGroup: o.consumerGroup,
    namesrvAddr: Object.freeze(parseNamesrvAddr(namesrvRaw)),
    subscriptions: Object.freeze(subscriptions),
    awaitDuration: checkDuration('awaitDuration', o.awaitDuration),
    invisibleDuration: checkDuration('invisibleDuration', o.invisibleDuration, 1),
    fifo: checkBoolean('fifo', o.fifo),
    maxReconsumeTimes: checkInt('maxReconsumeTimes', o.maxReconsumeTimes, 0, 16 * 1024),
    namespace,
    instanceName: o.instanceName,
    pollNameServerInterval: checkDuration('pollNameServerInterval', o.pollNameServerInterval, 10),
    heartbeatBrokerInterval: checkDuration('heartbeatBrokerInterval', o.heartbeatBrokerInterval, 10),
    mqClientApiTimeout: checkDuration('mqClientApiTimeout', o.mqClientApiTimeout, 1),
    logger: checkLogger('logger', o.logger),
  };
}
