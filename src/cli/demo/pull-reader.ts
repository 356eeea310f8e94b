/**
 * A minimal pull reader: reads every message of a topic from the beginning of each queue on each
 * broker, with plain PULL_MESSAGE requests (no long polling, no offset commits, no rebalancing).
 * The demo uses it to verify that every acknowledged message was stored exactly where the broker
 * said; it is not a consumer for applications.
 */
import { InvalidArgumentError, ProtocolError, TopicNotFoundError } from '../../errors.js';
import { checkInt, checkLogger, checkPositive, checkString, withDefaults } from '../../options.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger.js';
import { createRequest, DEFAULT_COMMAND_DEFAULTS, type RemotingCommand } from '../../protocol/command.js';
import { RequestCode, ResponseCode } from '../../protocol/codes.js';
import { PropertyKey } from '../../protocol/message/properties.js';
import { ConnectionPool } from '../../remoting/pool.js';
import { decodePullBody } from '../../consumer/core/message-view.js';
import { Deadline } from '../../client/deadline.js';
import { NamesrvClient } from '../../client/namesrv-client.js';
import { standaloneRouteLookup, type RouteLookup } from '../../client/route-lookup.js';
import { errorFromResponse } from '../../client/response-error.js';
import { masterAddress, subscribeQueues, type RouteData } from '../../client/route.js';

/** `PullSysFlag.FLAG_SUBSCRIPTION`: the request carries its own subscription (`*`). */
const FLAG_SUBSCRIPTION = 0x4;

export interface PullReaderOptions {
  /** NameServer address(es), `host:port`, separated by `;`. */
  namesrvAddr: string;
  /**
   * Consumer group named in the pull requests (the broker auto-creates its subscription config).
   * @default 'rocketmq-ts-pull-reader'
   */
  consumerGroup: string;
  /** Messages per pull request. @default 32 */
  maxMsgNums: number;
  /** Timeout of each request. @default 10000 */
  requestTimeoutMs: number;
  /** @default silentLogger */
  logger: Logger;
}

export const DEFAULT_PULL_READER_OPTIONS: Readonly<Omit<PullReaderOptions, 'namesrvAddr'>> = Object.freeze({
  consumerGroup: 'rocketmq-ts-pull-reader',
  maxMsgNums: 32,
  requestTimeoutMs: 10_000,
  logger: silentLogger,
});

export function validatePullReaderOptions(
  options: Partial<PullReaderOptions> & { namesrvAddr: string },
): PullReaderOptions {
  const merged = withDefaults<PullReaderOptions>(DEFAULT_PULL_READER_OPTIONS, options, [
    'namesrvAddr',
    ...Object.keys(DEFAULT_PULL_READER_OPTIONS),
  ]);
  if (typeof merged.namesrvAddr !== 'string' || !/^[^:;]+:\d+(;[^:;]+:\d+)*$/.test(merged.namesrvAddr)) {
    throw new InvalidArgumentError(
      'namesrvAddr',
      `expected host:port[;host:port], got ${String(merged.namesrvAddr)}`,
    );
  }
  checkString('consumerGroup', merged.consumerGroup);
  checkInt('maxMsgNums', merged.maxMsgNums, 1, 1024);
  checkPositive('requestTimeoutMs', merged.requestTimeoutMs);
  checkLogger('logger', merged.logger);
  return merged;
}

/** One message as read back from a broker. */
export interface ReadMessage {
  /** Client message id (UNIQ_KEY property); empty when the producer set none. */
  readonly msgId: string;
  readonly topic: string;
  readonly tags: string | undefined;
  readonly keys: string | undefined;
  readonly properties: Readonly<Record<string, string>>;
  /** Decompressed body. */
  readonly body: Buffer;
  readonly queueId: number;
  readonly brokerName: string;
  readonly queueOffset: number;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
}

/** A readable queue of a topic, from the NameServer route. */
export interface QueueLocation {
  readonly brokerName: string;
  /** Master address (brokerId 0). */
  readonly address: string;
  readonly queueId: number;
}

export class PullReader {
  readonly options: PullReaderOptions;
  private readonly pool: ConnectionPool;
  private readonly routes: RouteLookup;

  constructor(options: Partial<PullReaderOptions> & { namesrvAddr: string }) {
    this.options = validatePullReaderOptions(options);
    this.pool = new ConnectionPool({ logger: this.options.logger });
    // NameServers in the given order, as before: the first one is asked first.
    const namesrv = new NamesrvClient(
      this.options.namesrvAddr.split(';'),
      this.pool,
      DEFAULT_COMMAND_DEFAULTS,
      this.options.logger,
      0,
    );
    this.routes = standaloneRouteLookup(namesrv, this.options.logger, this.options.requestTimeoutMs);
  }

  /** Every readable queue of `topic` with its broker's master address, sorted by broker and id. */
  async queues(topic: string): Promise<QueueLocation[]> {
    const route = await this.routes.latest(topic, Deadline.after(this.options.requestTimeoutMs));
    if (route === undefined)
      throw new TopicNotFoundError(topic, 'the NameServer does not know the topic', { retriable: true });
    return queuesFromRoute(route);
  }

  /** Reads every message of `topic`, queue after queue, from offset 0 to the current end. */
  async *readTopic(topic: string): AsyncGenerator<ReadMessage> {
    for (const queue of await this.queues(topic)) yield* this.readQueue(topic, queue);
  }

  /** Reads one queue from `fromOffset` until the broker has nothing more. */
  async *readQueue(topic: string, queue: QueueLocation, fromOffset = 0): AsyncGenerator<ReadMessage> {
    let offset = fromOffset;
    for (;;) {
      const request = createRequest(RequestCode.PULL_MESSAGE, {
        consumerGroup: this.options.consumerGroup,
        topic,
        queueId: queue.queueId,
        queueOffset: offset,
        maxMsgNums: this.options.maxMsgNums,
        sysFlag: FLAG_SUBSCRIPTION,
        commitOffset: 0,
        suspendTimeoutMillis: 0,
        subscription: '*',
        subVersion: 0,
        expressionType: 'TAG',
      });
      const response = await this.pool.request(queue.address, request, this.options.requestTimeoutMs);
      const next = numberField(response, 'nextBeginOffset');
      const max = numberField(response, 'maxOffset');
      if (response.code === ResponseCode.SUCCESS) {
        const body = response.body ?? new Uint8Array(0);
        const messages = decodePullBody(body, {
          queue: { topic, brokerName: queue.brokerName, queueId: queue.queueId },
        });
        for (const m of messages) {
          yield {
            msgId: m.systemProperties[PropertyKey.UNIQ_KEY] ?? '',
            topic: m.topic,
            tags: m.tags,
            keys: m.systemProperties[PropertyKey.KEYS],
            properties: { ...m.systemProperties, ...m.properties },
            body: m.body,
            queueId: m.queue.queueId,
            brokerName: m.queue.brokerName,
            queueOffset: m.queueOffset,
            bornTimestamp: m.bornTimestamp,
            storeTimestamp: m.storeTimestamp,
          };
        }
        if (next === undefined || next <= offset) {
          throw new ProtocolError(`pull from ${queue.address} did not advance past offset ${offset}`);
        }
        offset = next;
        if (max !== undefined && offset >= max) return;
      } else if (response.code === ResponseCode.PULL_NOT_FOUND) {
        return;
      } else if (
        response.code === ResponseCode.PULL_OFFSET_MOVED ||
        response.code === ResponseCode.PULL_RETRY_IMMEDIATELY
      ) {
        if (next === undefined || next <= offset) return;
        offset = next;
      } else {
        throw errorFromResponse(response, { address: queue.address, permission: 'SUB', topic });
      }
    }
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

function numberField(response: RemotingCommand, name: string): number | undefined {
  const raw = response.extFields?.[name];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Readable queues (Java `topicRouteData2TopicSubscribeInfo`) of the brokers that have a master,
 * with the master's address, sorted by broker name and queue id.
 */
export function queuesFromRoute(route: RouteData): QueueLocation[] {
  const out: QueueLocation[] = [];
  for (const q of subscribeQueues('', route)) {
    const address = masterAddress(route, q.brokerName);
    if (address !== undefined) out.push({ brokerName: q.brokerName, address, queueId: q.queueId });
  }
  out.sort((a, b) =>
    a.brokerName === b.brokerName ? a.queueId - b.queueId : a.brokerName < b.brokerName ? -1 : 1,
  );
  return out;
}
