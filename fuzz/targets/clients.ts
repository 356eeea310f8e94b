/**
 * The clients' response handling: a fake server (NameServer and broker on one port) answers a
 * Producer, a running PushConsumer and a NamesrvClient with random responses — every response
 * code, fitting or random headers, valid bodies (routes, pulled messages, consumer lists) often
 * mutated, garbage frames, no answer, a closed connection. Invariants: every call settles within
 * its timeout with a result or a typed error (a RocketMQError subclass, never a TypeError or
 * SyntaxError), nothing is thrown uncaught meanwhile, and the clients shut down in bounded time.
 */
import type * as net from 'node:net';
import { Deadline } from '../../src/client/deadline.js';
import { publishQueues, subscribeQueues } from '../../src/client/route.js';
import { NamesrvClient } from '../../src/client/namesrv-client.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { RocketMQError } from '../../src/errors.js';
import { silentLogger } from '../../src/observability/logger.js';
import { Producer } from '../../src/producer/producer.js';
import { RequestCode } from '../../src/protocol/codes.js';
import {
  createResponse,
  DEFAULT_COMMAND_DEFAULTS,
  type RemotingCommand,
} from '../../src/protocol/command.js';
import { encodeConsumerListBody } from '../../src/protocol/headers/consumer.js';
import type { HeaderSpec } from '../../src/protocol/headers/fields.js';
import { OffsetResponse } from '../../src/protocol/headers/offset.js';
import { PullMessageResponse } from '../../src/protocol/headers/pull.js';
import { encodeTopicRouteData } from '../../src/protocol/headers/route.js';
import { SendMessageResponse } from '../../src/protocol/headers/send.js';
import { encodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import type { Connection } from '../../src/remoting/connection.js';
import { ConnectionPool } from '../../src/remoting/pool.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { randomBody, randomHeader } from '../commands.js';
import { Random } from '../random.js';
import { describeError, violated, type FuzzTarget } from '../target.js';

const TIMEOUT_MS = 300;
const BACKGROUND_LANGUAGE = 'GO';

const RESPONSE_HEADERS: ReadonlyMap<number, HeaderSpec> = new Map<number, HeaderSpec>([
  [RequestCode.SEND_MESSAGE, SendMessageResponse.spec],
  [RequestCode.SEND_MESSAGE_V2, SendMessageResponse.spec],
  [RequestCode.SEND_BATCH_MESSAGE, SendMessageResponse.spec],
  [RequestCode.PULL_MESSAGE, PullMessageResponse.spec],
  [RequestCode.QUERY_CONSUMER_OFFSET, OffsetResponse.spec],
  [RequestCode.GET_MAX_OFFSET, OffsetResponse.spec],
  [RequestCode.GET_MIN_OFFSET, OffsetResponse.spec],
  [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, OffsetResponse.spec],
]);

const RESPONSE_CODES = [
  0, 0, 0, 0, 1, 2, 3, 10, 11, 12, 13, 14, 16, 17, 19, 20, 21, 22, 24, 25, 26, 29, 206, 208, 215,
];

export interface ClientCaseInput {
  /** Seeds the fake server's answers during this case (answers depend on request order). */
  answerSeed: number;
  topic: string;
  body: string;
  calls: Array<'send' | 'route' | 'cluster'>;
}

interface ClientContext {
  server: RemotingServer;
  producer: Producer;
  consumer: PushConsumer;
  pool: ConnectionPool;
  namesrv: NamesrvClient;
  /** Answers to the producer and the NamesrvClient: a case's calls get the same answers on replay. */
  answers: Random;
  /** Answers to the consumer's own timers (language GO marks its requests), drawn apart. */
  background: Random;
}

function validBody(r: Random, code: number, self: string): Uint8Array | undefined {
  if (code === RequestCode.GET_ROUTEINFO_BY_TOPIC) {
    const queues = r.chance(0.9) ? 1 + r.int(4) : r.int32();
    return encodeTopicRouteData({
      queueDatas: [
        {
          brokerName: 'fuzz-b',
          readQueueNums: queues,
          writeQueueNums: queues,
          perm: r.pick([6, 6, 2, 4, 0]),
          topicSysFlag: 0,
        },
      ],
      brokerDatas: [
        {
          cluster: 'C',
          brokerName: 'fuzz-b',
          brokerAddrs: { [r.pick(['0', '0', '1', 'x'])]: r.chance(0.9) ? self : r.string() },
        },
      ],
      filterServerTable: {},
    });
  }
  if (code === RequestCode.PULL_MESSAGE) {
    return Buffer.concat(
      Array.from({ length: r.int(3) }, () =>
        encodeStoredMessage({
          queueId: r.int(4),
          flag: 0,
          queueOffset: r.int(100),
          physicalOffset: r.int(1e6),
          sysFlag: r.pick([0, 0, 1, 2]),
          bornTimestamp: Date.now(),
          bornHost: { address: '127.0.0.1', port: 1 },
          storeTimestamp: Date.now(),
          storeHost: { address: '127.0.0.1', port: 2 },
          reconsumeTimes: r.int(3),
          preparedTransactionOffset: 0,
          body: r.bytes(r.size(64)),
          topic: r.pick(['FuzzTopic', '%RETRY%FuzzGroup', r.string()]),
          properties: r.pick(['', 'TAGS\u0001a\u0002UNIQ_KEY\u0001ID\u0002', r.string()]),
        }),
      ),
    );
  }
  if (code === RequestCode.GET_CONSUMER_LIST_BY_GROUP)
    return encodeConsumerListBody(r.chance(0.5) ? ['x'] : []);
  return undefined;
}

/** The fake server's answer to one request, drawn from the current case's Random. */
export function answer(
  ctx: ClientContext,
  request: RemotingCommand,
  conn: Connection,
): Promise<RemotingCommand> | RemotingCommand | undefined {
  const r = request.language === BACKGROUND_LANGUAGE ? ctx.background : ctx.answers;
  const roll = r.int(20);
  if (roll === 0) return undefined; // never answered: the client's timeout must fire
  if (roll === 1) {
    conn.close();
    return undefined;
  }
  if (roll === 2) {
    (conn as unknown as { socket: net.Socket }).socket.write(
      r.mutate(Buffer.from('0000001a0000001600000000', 'hex')),
    );
    return undefined;
  }
  const valid = validBody(r, request.code, ctx.server.address);
  // Half the time a plausible success, so the clients get past the first check into the parsing.
  if (valid !== undefined && r.chance(0.5)) {
    const body = r.chance(0.3) ? r.mutate(valid) : valid;
    const spec = RESPONSE_HEADERS.get(request.code);
    return createResponse(
      request,
      0,
      undefined,
      spec === undefined ? undefined : randomHeader(r, spec),
      body,
    );
  }
  const spec = RESPONSE_HEADERS.get(request.code);
  const response = createResponse(
    request,
    r.pick(RESPONSE_CODES),
    r.chance(0.3) ? r.string() : undefined,
    spec === undefined ? undefined : randomHeader(r, spec),
    randomBody(r, valid === undefined ? [] : [valid, valid, valid]),
  );
  if (roll === 3)
    return new Promise((resolve) => setTimeout(() => resolve(response), r.int(TIMEOUT_MS * 2)).unref());
  return response;
}

function expectTyped(what: string, err: unknown): void {
  if (!(err instanceof RocketMQError)) violated(`${what} failed with an untyped ${describeError(err)}`, err);
}

export const clientsTarget: FuzzTarget<ClientCaseInput, ClientContext> = {
  name: 'clients',
  description:
    'Producer, PushConsumer and NamesrvClient against a fake broker giving random or malformed responses',
  caseTimeoutMs: 10_000,
  async setup() {
    const server = new RemotingServer();
    const ctx = { server, answers: new Random(0), background: new Random(1) } as ClientContext;
    server.setDefaultProcessor((request, conn) => answer(ctx, request, conn));
    await server.listen();
    const common = { namesrvAddr: server.address, logger: silentLogger, instanceName: `fuzz${process.pid}` };
    ctx.producer = new Producer({
      ...common,
      producerGroup: 'FuzzGroup',
      sendMsgTimeout: TIMEOUT_MS,
      mqClientApiTimeout: TIMEOUT_MS,
    });
    ctx.consumer = new PushConsumer({
      ...common,
      consumerGroup: 'FuzzGroup',
      language: BACKGROUND_LANGUAGE,
      rebalanceInterval: 100,
      persistConsumerOffsetInterval: 100,
      heartbeatBrokerInterval: 100,
      pollNameServerInterval: 100,
      brokerSuspendMaxTimeMillis: 100,
      consumerTimeoutMillisWhenSuspend: TIMEOUT_MS,
      pullTimeDelayMillsWhenException: 20,
      awaitTerminationMillisWhenShutdown: 1000,
      mqClientApiTimeout: TIMEOUT_MS,
    });
    ctx.consumer.subscribe('FuzzTopic', '*');
    // Start against the (random) fake: either outcome is fine, as long as it is typed.
    await ctx.producer.start().catch((err: unknown) => expectTyped('Producer.start', err));
    await ctx.consumer
      .start(() => Promise.resolve())
      .catch((err: unknown) => expectTyped('PushConsumer.start', err));
    ctx.pool = new ConnectionPool({ logger: silentLogger });
    ctx.namesrv = new NamesrvClient([server.address], ctx.pool, DEFAULT_COMMAND_DEFAULTS, silentLogger, 0);
    return ctx;
  },
  generate: (r) => ({
    answerSeed: r.int(0x100000000),
    topic: r.chance(0.8) ? 'FuzzTopic' : `FuzzTopic${r.int(50)}`,
    body: r.string(),
    calls: Array.from({ length: 1 + r.int(3) }, () => r.pick(['send', 'send', 'route', 'cluster'] as const)),
  }),
  async run(input, ctx) {
    ctx.answers = new Random(input.answerSeed);
    ctx.background = new Random(input.answerSeed ^ 0x5bd1e995);
    for (const call of input.calls) {
      const started = Date.now();
      try {
        if (call === 'send') await ctx.producer.send({ topic: input.topic, body: input.body || 'x' });
        else if (call === 'route') {
          // What producers and consumers do with a route: one queue object per queue.
          const route = await ctx.namesrv.getRouteInfo(input.topic, Deadline.after(TIMEOUT_MS));
          if (route !== undefined)
            publishQueues(input.topic, route).push(...subscribeQueues(input.topic, route));
        } else await ctx.namesrv.getClusterInfo(Deadline.after(TIMEOUT_MS));
      } catch (err) {
        expectTyped(call, err);
      }
      // A send may retry within its own timeout; the route lookup before it has its own budget.
      const bound = 3 * TIMEOUT_MS + 500;
      if (Date.now() - started > bound) violated(`${call} took ${Date.now() - started} ms, over ${bound} ms`);
    }
  },
  async teardown(ctx) {
    const started = Date.now();
    await ctx.consumer.shutdown().catch((err: unknown) => expectTyped('PushConsumer.shutdown', err));
    await ctx.producer.shutdown().catch((err: unknown) => expectTyped('Producer.shutdown', err));
    await ctx.pool.close();
    await ctx.server.close();
    if (Date.now() - started > 5000) violated(`the clients took ${Date.now() - started} ms to shut down`);
  },
};
