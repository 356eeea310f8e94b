/**
 * The consumers behind `rocketmq-ts consume --mode …`, one entry per mode: each opens its
 * consumer, hands messages to the command's `take` until `take` says the count is reached, and
 * leaves every message it did not count to the group (uncommitted) at shutdown.
 */
import type { ClientConnectionOptions } from '../../client/connection-options.js';
import type { MessageQueue } from '../../client/route.js';
import { InvalidArgumentError } from '../../errors.js';
import {
  LitePullConsumer,
  PushConsumer,
  SimpleConsumer,
  type ConsumerMessage,
  type SubscriptionExpression,
} from '../../consumer/index.js';

export interface ConsumeSpec {
  /** Credentials and TLS (the --access-key/--secret-key/--tls flags). */
  connection: ClientConnectionOptions;
  /** `host:port[;host:port]`. */
  namesrvAddr: string;
  consumerGroup: string;
  topic: string;
  subscription: SubscriptionExpression;
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' | 'CONSUME_FROM_LAST_OFFSET' | 'CONSUME_FROM_TIMESTAMP';
  consumeTimestamp: string;
  orderly: boolean;
}

/**
 * Takes one message: true when it was counted, false once the count is reached (the message
 * stays unconsumed for the group).
 */
export type TakeMessage = (message: ConsumerMessage) => boolean;

export interface ConsumeSession {
  start(take: TakeMessage): Promise<void>;
  /** Messages not yet consumed in the queues held, when the mode can tell. */
  lag?(): Promise<number>;
  shutdown(): Promise<void>;
}

function pushSession(spec: ConsumeSpec): ConsumeSession {
  const consumer = new PushConsumer({
    ...spec.connection,
    namesrvAddr: spec.namesrvAddr,
    consumerGroup: spec.consumerGroup,
    consumeFromWhere: spec.consumeFromWhere,
    consumeTimestamp: spec.consumeTimestamp,
    consumeOrderly: spec.orderly,
    // Handlers past the count never settle; shutdown leaves them unconsumed instead of waiting.
    awaitTerminationMillisWhenShutdown: 1000,
  });
  consumer.subscribe(spec.topic, spec.subscription);
  return {
    start: (take) =>
      consumer.start(async (message) => {
        if (take(message)) return;
        // Past the count: never settle, so the committed offset stays below this message and
        // the group gets it again; shutdown stops waiting after awaitTerminationMillisWhenShutdown.
        consumer.pause();
        return new Promise<never>(() => undefined);
      }),
    lag: async () => (await consumer.lag().catch(() => [])).reduce((sum, q) => sum + q.lag, 0),
    shutdown: () => consumer.shutdown(),
  };
}

function pullSession(spec: ConsumeSpec): ConsumeSession {
  const consumer = new LitePullConsumer({
    ...spec.connection,
    namesrvAddr: spec.namesrvAddr,
    consumerGroup: spec.consumerGroup,
    consumeFromWhere: spec.consumeFromWhere,
    consumeTimestamp: spec.consumeTimestamp,
  });
  consumer.subscribe(spec.topic, spec.subscription);
  let stopping = false;
  let loop: Promise<void> = Promise.resolve();
  /** Per queue, the lowest offset polled but not counted: the group resumes there. */
  const uncounted = new Map<string, { queue: MessageQueue; offset: number }>();
  const leave = (m: ConsumerMessage): void => {
    const key = `${m.queue.brokerName}/${m.queue.queueId}`;
    const seen = uncounted.get(key);
    if (seen === undefined || m.queueOffset < seen.offset)
      uncounted.set(key, { queue: m.queue, offset: m.queueOffset });
  };
  return {
    async start(take) {
      await consumer.start();
      loop = (async () => {
        while (!stopping) {
          for (const m of await consumer.poll(500)) {
            if (stopping || uncounted.has(`${m.queue.brokerName}/${m.queue.queueId}`) || !take(m)) leave(m);
          }
        }
      })();
    },
    async shutdown() {
      stopping = true;
      await loop.catch(() => undefined);
      // poll() moved the consumed offsets past its whole batch; the uncounted rest goes back.
      if (uncounted.size > 0) await consumer.commit([...uncounted.values()]).catch(() => undefined);
      await consumer.shutdown();
    },
  };
}

/**
 * POP (RocketMQ 5): a SimpleConsumer receiving up to 32 at a time; a counted message is acked, one
 * past the count is left un-acked and comes back to the group after its invisible time. `--orderly`
 * makes it a FIFO receive. Where a new group starts is the broker's choice (its POP rules).
 */
function popSession(spec: ConsumeSpec): ConsumeSession {
  if (typeof spec.subscription !== 'string')
    throw new InvalidArgumentError('--sql', 'POP subscriptions take a tag expression (--expression)');
  const consumer = new SimpleConsumer({
    ...spec.connection,
    namesrvAddr: spec.namesrvAddr,
    consumerGroup: spec.consumerGroup,
    subscriptions: { [spec.topic]: spec.subscription },
    awaitDuration: 1000,
    // Without --orderly the group's consumeMessageOrderly decides, as for any SimpleConsumer.
    ...(spec.orderly ? { fifo: true } : {}),
  });
  let stopping = false;
  let loop: Promise<void> = Promise.resolve();
  return {
    async start(take) {
      await consumer.start();
      loop = (async () => {
        while (!stopping) {
          let batch;
          try {
            batch = await consumer.receive(32, 30_000);
          } catch {
            if (stopping) return;
            // A broker restarting or a route not there yet: try again shortly, the run goes on.
            await new Promise((r) => setTimeout(r, 1000));
            continue;
          }
          for (const m of batch) if (!stopping && take(m)) await consumer.ack(m).catch(() => undefined);
        }
      })();
    },
    async shutdown() {
      stopping = true;
      await loop.catch(() => undefined);
      await consumer.shutdown();
    },
  };
}

/** `--mode` values; a new consumer kind is one more entry. */
export const CONSUME_MODES = Object.freeze({
  push: pushSession,
  pull: pullSession,
  pop: popSession,
} satisfies Record<string, (spec: ConsumeSpec) => ConsumeSession>);

export type ConsumeMode = keyof typeof CONSUME_MODES;
export const CONSUME_MODE_NAMES = Object.keys(CONSUME_MODES) as ConsumeMode[];
