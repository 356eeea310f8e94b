/**
 * The embedded servers' request handlers over a real loopback socket. Each case writes 1–3
 * requests (every registered code and random ones, fitting or random headers, bodies of every
 * size, sometimes mutated bytes) in chunks cut at random points. Invariants: every intact request
 * is answered with a well-formed response of its opaque (or the connection is closed); the server
 * never answers with a frame we cannot decode; a request answered with a rejecting code changes
 * nothing stored (topic config, queue max offsets, consumer offsets, routes, KV); the server's
 * connection is gone once we hang up (no leak).
 */
import * as net from 'node:net';
import { ResponseCode } from '../../src/protocol/codes.js';
import { FLAG_ONEWAY, FLAG_RESPONSE, type RemotingCommand } from '../../src/protocol/command.js';
import { decodeFrame, encodeFrameToBuffer } from '../../src/protocol/frame.js';
import { encodeBatch } from '../../src/protocol/message/batch.js';
import { FrameParser } from '../../src/remoting/frame-parser.js';
import type { RemotingServer } from '../../src/remoting/server.js';
import type { Broker } from '../../src/server/broker/broker.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { NAMES, randomRequest } from '../commands.js';
import { chunksOf, type Random } from '../random.js';
import { describeError, violated, type FuzzTarget } from '../target.js';

/** Response codes that say the request was refused: after them nothing stored may differ. */
const REJECTING = new Set<number>([
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.SYSTEM_BUSY,
  ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
  ResponseCode.MESSAGE_ILLEGAL,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.VERSION_NOT_SUPPORTED,
  ResponseCode.NO_PERMISSION,
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.SUBSCRIPTION_PARSE_FAILED,
  ResponseCode.SUBSCRIPTION_NOT_EXIST,
  ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
  ResponseCode.INVALID_PARAMETER,
  ResponseCode.ILLEGAL_OPERATION,
]);

/** How long an intact request may take to be answered (held pulls ask for at most 300 ms). */
const ANSWER_WITHIN_MS = 3000;
/** After mutated bytes: how long the server gets to answer or hang up before we do. */
const QUIET_MS = 100;

export interface ServerCaseInput {
  /** The byte stream as hex, and where it is cut into writes. */
  hex: string;
  splits: number[];
  intact: boolean;
  /** Opaques that must be answered (intact non-oneway requests). */
  expect: number[];
  oneway: boolean;
  codes: number[];
}

export interface ServerContext {
  cluster: EmbeddedCluster;
  server: RemotingServer;
  address: string;
  codes: number[];
  snapshot(): string;
}

const VALID_BODIES: Uint8Array[] = [
  encodeBatch([
    { body: Buffer.from('a'), flag: 0, properties: 'KEYS\u0001k\u0002' },
    { body: Buffer.from('bb'), flag: 0, properties: '' },
  ]),
  Buffer.from(
    JSON.stringify({
      clientID: '127.0.0.1@fuzz',
      producerDataSet: [{ groupName: 'FuzzGroup' }],
      consumerDataSet: [
        {
          groupName: 'FuzzGroup',
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          subscriptionDataSet: [
            { topic: 'FuzzTopic', subString: '*', tagsSet: [], codeSet: [], subVersion: 1 },
          ],
          unitMode: false,
        },
      ],
    }),
  ),
  Buffer.from(
    JSON.stringify({
      consumerGroup: 'FuzzGroup',
      clientId: '127.0.0.1@fuzz',
      mqSet: [{ topic: 'FuzzTopic', brokerName: 'broker-a', queueId: 0 }],
    }),
  ),
  Buffer.from(
    JSON.stringify({
      filterServerList: [],
      topicConfigSerializeWrapper: {
        topicConfigTable: {
          FuzzTopic: { topicName: 'FuzzTopic', readQueueNums: 4, writeQueueNums: 4, perm: 6 },
        },
        dataVersion: { timestamp: 1, counter: 1 },
      },
    }),
  ),
];

function generate(r: Random, ctx: ServerContext): ServerCaseInput {
  const requests: RemotingCommand[] = Array.from({ length: 1 + r.int(3) }, () =>
    randomRequest(r, { codes: ctx.codes, validBodies: VALID_BODIES }),
  );
  const frames = requests.map((c) => encodeFrameToBuffer(c));
  const stream = Buffer.concat(frames);
  const intact = r.chance(0.8);
  const bytes = intact ? stream : r.mutate(stream);
  return {
    hex: bytes.toString('hex'),
    splits: r.splits(bytes.length),
    intact,
    expect: intact ? requests.filter((c) => (c.flag & FLAG_ONEWAY) === 0).map((c) => c.opaque) : [],
    oneway: requests.some((c) => (c.flag & FLAG_ONEWAY) !== 0),
    codes: requests.map((c) => c.code),
  };
}

/** The snapshot sections that differ, with their new value (snapshots are JSON objects). */
function changedParts(before: string, after: string): string {
  const a = JSON.parse(before) as Record<string, unknown>;
  const b = JSON.parse(after) as Record<string, unknown>;
  return Object.keys(b)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
    .map((k) => `${k}: ${JSON.stringify(a[k]).slice(0, 300)} -> ${JSON.stringify(b[k]).slice(0, 300)}`)
    .join('; ');
}

async function run(input: ServerCaseInput, ctx: ServerContext): Promise<void> {
  const before = ctx.snapshot();
  const baseline = ctx.server.connections.size;
  const [host, port] = ctx.address.split(':') as [string, string];
  const socket = net.connect({ host, port: Number(port) });
  const responses: RemotingCommand[] = [];
  const parser = new FrameParser();
  let closed = false;
  let lastData = Date.now();
  let badResponse: string | undefined;
  socket.on('data', (chunk: Buffer) => {
    lastData = Date.now();
    try {
      parser.push(chunk, (frame) => {
        const cmd = decodeFrame(frame);
        // Requests the broker sends (NOTIFY_CONSUMER_IDS_CHANGED, CHECK_TRANSACTION_STATE) are fine.
        if ((cmd.flag & FLAG_RESPONSE) !== 0) responses.push(cmd);
      });
    } catch (err) {
      badResponse = describeError(err);
    }
  });
  socket.on('error', () => undefined);
  const closedPromise = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closedPromise.then(() => (closed = true));
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    for (const chunk of chunksOf(Buffer.from(input.hex, 'hex'), input.splits)) {
      if (closed) break;
      socket.write(chunk);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const started = Date.now();
    const answered = (): boolean => input.expect.every((o) => responses.some((r) => r.opaque === o));
    for (;;) {
      if (closed || badResponse !== undefined) break;
      if (input.intact ? answered() : Date.now() - lastData > QUIET_MS) break;
      if (Date.now() - started > ANSWER_WITHIN_MS)
        violated(
          `codes ${input.codes.join(',')}: no answer within ${ANSWER_WITHIN_MS} ms and the connection is open`,
        );
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (badResponse !== undefined) violated(`the server sent a frame we cannot decode: ${badResponse}`);
    if (input.intact && !closed && !input.oneway && input.expect.length > 0) {
      const rejected = responses.every((r) => REJECTING.has(r.code));
      const after = ctx.snapshot();
      if (rejected && after !== before) {
        const codes = responses.map((r) => `${r.code} ${r.remark ?? ''}`).join('; ');
        violated(
          `request codes ${input.codes.join(',')} were rejected (${codes}) but the stored state changed: ${changedParts(before, after)}`,
        );
      }
    }
  } finally {
    socket.destroy();
    await closedPromise;
  }
  const hungUp = Date.now();
  while (ctx.server.connections.size > baseline) {
    if (Date.now() - hungUp > 1000)
      violated(`the server still holds the connection 1 s after the client hung up`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What a refused request must leave unchanged on a broker: topics, queues, the log, offsets. */
export function brokerSnapshot(broker: Broker): string {
  const store = broker.store;
  return JSON.stringify({
    topics: broker.topics.topics().sort((a, b) => (a.topicName < b.topicName ? -1 : 1)),
    queues: store
      .topics()
      .sort()
      .map((t) => [t, store.queueIds(t).map((q) => [q, store.getMaxOffset(t, q)])]),
    log: store.maxPhysicalOffset,
    offsets: store.consumerOffsets.entries().map((e) => [e.group, e.topic, [...e.offsets]]),
  });
}

async function startCluster(): Promise<EmbeddedCluster> {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  await cluster.createTopic(NAMES.topics[0] as string, 4);
  return cluster;
}

export const brokerTarget: FuzzTarget<ServerCaseInput, ServerContext> = {
  name: 'broker',
  description:
    'every embedded Broker request handler over a loopback socket (random codes, headers, bodies, split frames)',
  caseTimeoutMs: 10_000,
  async setup() {
    const cluster = await startCluster();
    const broker = cluster.broker('broker-a');
    const server = broker['server'] as RemotingServer;
    return {
      cluster,
      server,
      address: broker.address,
      codes: server.requestCodes,
      snapshot: () => brokerSnapshot(broker),
    };
  },
  generate,
  run,
  teardown: (ctx) => ctx.cluster.stop(),
};

export const namesrvTarget: FuzzTarget<ServerCaseInput, ServerContext> = {
  name: 'namesrv',
  description: 'every embedded NameServer request handler over a loopback socket',
  caseTimeoutMs: 10_000,
  async setup() {
    const cluster = await startCluster();
    const namesrv = cluster.namesrv;
    const server = namesrv['server'] as RemotingServer;
    return {
      cluster,
      server,
      address: namesrv.address,
      codes: server.requestCodes,
      snapshot: () =>
        JSON.stringify({
          topics: namesrv.routes.allTopics().sort(),
          clusters: namesrv.routes.clusterInfo(),
          kv: [...(namesrv['kv'] as Map<string, Map<string, string>>)].map(([ns, m]) => [ns, [...m]]),
        }),
    };
  },
  generate,
  run,
  teardown: (ctx) => ctx.cluster.stop(),
};
