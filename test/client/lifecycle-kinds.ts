/**
 * The six public classes behind one shape for the lifecycle and event scenarios: how to make
 * one against an embedded cluster, whether the brokers list it, and how to make its start fail
 * in a way a retry gets past.
 */
import type { LifecycleState } from '../../src/client/lifecycle.js';
import { Admin } from '../../src/admin/admin.js';
import { LitePullConsumer } from '../../src/consumer/lite-pull/lite-pull-consumer.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import { silentLogger } from '../../src/observability/logger.js';
import { Producer } from '../../src/producer/producer.js';
import { TransactionProducer } from '../../src/producer/transaction-producer.js';
import type { EmbeddedCluster } from '../../src/server/cluster.js';

/** What every class offers, adapted (the push consumer's start takes its handler here). */
export interface LifecycleClient {
  start(): Promise<void>;
  shutdown(): Promise<void>;
  readonly state: LifecycleState;
  /** The class itself, for its events. */
  readonly target: {
    on(event: string, listener: (payload: never) => void): unknown;
  };
  /** Push consumer: handler calls so far; 0 for the others. */
  handled(): number;
  /** What makes a running client known to the brokers: a producer sends (then it heartbeats). */
  use(topic: string): Promise<void>;
}

export interface Env {
  cluster: EmbeddedCluster;
  topic: string;
  group: string;
  instanceName: string;
}

export interface Kind {
  name: string;
  make(env: Env): LifecycleClient;
  /** Clients of `group` the brokers list (consumer or producer table); undefined: not listed. */
  listed?(cluster: EmbeddedCluster, group: string): number;
  /**
   * A client whose start fails, and what then lets a retry of that same client succeed;
   * undefined when the class's start cannot fail (Admin's does no I/O).
   */
  failingStart?(env: Env): Promise<{ client: LifecycleClient; repair(): Promise<void> }>;
  /** Its start talks to the NameServer or brokers (so a 'connect' comes while it is STARTING). */
  startConnects?: boolean;
}

const FAST = {
  heartbeatBrokerInterval: 500,
  pollNameServerInterval: 500,
  logger: silentLogger,
};

function adapt(
  c: { start(): Promise<void>; shutdown(): Promise<void>; readonly state: LifecycleState },
  target: LifecycleClient['target'],
  use: (topic: string) => Promise<void> = () => Promise.resolve(),
): LifecycleClient {
  return {
    start: () => c.start(),
    shutdown: () => c.shutdown(),
    get state() {
      return c.state;
    },
    target,
    handled: () => 0,
    use,
  };
}

const sendOne =
  (p: Producer) =>
  async (topic: string): Promise<void> => {
    await p.send({ topic, body: 'lifecycle' });
  };

function producerTable(cluster: EmbeddedCluster, group: string): number {
  let n = 0;
  for (const b of cluster.brokers) n += b.broker.clients.producerChannels(group)?.size ?? 0;
  return n;
}

function consumerTable(cluster: EmbeddedCluster, group: string): number {
  let n = 0;
  for (const b of cluster.brokers) n += b.broker.clients.consumerIds(group).length;
  return n;
}

/** A started twin of the same group and instanceName blocks the start; shutting it down repairs. */
function blockedByTwin(make: (env: Env) => LifecycleClient): Kind['failingStart'] {
  return async (env) => {
    const twin = make(env);
    await twin.start();
    return { client: make(env), repair: () => twin.shutdown() };
  };
}

const producer = (env: Env): LifecycleClient => {
  const p = new Producer({
    producerGroup: env.group,
    namesrvAddr: env.cluster.namesrvAddr,
    instanceName: env.instanceName,
    ...FAST,
  });
  return adapt(p, p, sendOne(p));
};

const transactionProducer = (env: Env): LifecycleClient => {
  const p = new TransactionProducer({
    producerGroup: env.group,
    namesrvAddr: env.cluster.namesrvAddr,
    instanceName: env.instanceName,
    checkListener: () => 'COMMIT',
    ...FAST,
  });
  return adapt(p, p, sendOne(p));
};

const pushConsumer = (env: Env): LifecycleClient => {
  const c = new PushConsumer({
    consumerGroup: env.group,
    namesrvAddr: env.cluster.namesrvAddr,
    instanceName: env.instanceName,
    rebalanceInterval: 500,
    persistConsumerOffsetInterval: 200,
    ...FAST,
  });
  c.subscribe(env.topic, '*');
  let handled = 0;
  return {
    start: () =>
      c.start(() => {
        handled++;
      }),
    shutdown: () => c.shutdown(),
    get state() {
      return c.state;
    },
    target: c,
    handled: () => handled,
    use: () => Promise.resolve(),
  };
};

const litePullConsumer = (env: Env): LifecycleClient => {
  const c = new LitePullConsumer({
    consumerGroup: env.group,
    namesrvAddr: env.cluster.namesrvAddr,
    instanceName: env.instanceName,
    rebalanceInterval: 500,
    autoCommitIntervalMillis: 200,
    pollTimeoutMillis: 200,
    ...FAST,
  });
  c.subscribe(env.topic, '*');
  return adapt(c, c);
};

const simpleConsumer = (env: Env, topic = env.topic): LifecycleClient => {
  const c = new SimpleConsumer({
    consumerGroup: env.group,
    namesrvAddr: env.cluster.namesrvAddr,
    instanceName: env.instanceName,
    subscriptions: { [topic]: '*' },
    awaitDuration: 200,
    pollNameServerInterval: 500,
    logger: silentLogger,
  });
  return adapt(c, c);
};

const admin = (env: Env): LifecycleClient => {
  const a = new Admin({ namesrvAddr: [env.cluster.namesrvAddr], logger: silentLogger });
  return adapt(a, a);
};

export const KINDS: readonly Kind[] = [
  { name: 'Producer', make: producer, listed: producerTable, failingStart: blockedByTwin(producer) },
  {
    name: 'TransactionProducer',
    make: transactionProducer,
    listed: producerTable,
    failingStart: blockedByTwin(transactionProducer),
  },
  {
    name: 'PushConsumer',
    make: pushConsumer,
    listed: consumerTable,
    failingStart: blockedByTwin(pushConsumer),
    startConnects: true,
  },
  {
    name: 'LitePullConsumer',
    make: litePullConsumer,
    listed: consumerTable,
    failingStart: blockedByTwin(litePullConsumer),
    startConnects: true,
  },
  {
    name: 'SimpleConsumer',
    make: (env) => simpleConsumer(env),
    startConnects: true,
    // Its subscribed topic does not exist yet: no route, so the start fails; creating it repairs.
    failingStart: (env) => {
      const missing = `${env.topic}_later`;
      return Promise.resolve({
        client: simpleConsumer(env, missing),
        repair: () => env.cluster.createTopic(missing, 2),
      });
    },
  },
  { name: 'Admin', make: admin },
];
