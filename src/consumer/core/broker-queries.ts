/**
 * The consumer's small synchronous questions to a broker: queue max offset and offset by time
 * (where a new group starts, lag, reset), the group's member list (rebalance) and the
 * subscriptions the broker keeps for it, the orderly queue locks (LOCK_BATCH_MQ /
 * UNLOCK_BATCH_MQ, docs/protocol.md §10.3) and whether the group is orderly (FIFO POP).
 */
import { errorFromResponse } from '../../client/response-error.js';
import {
  BrokerResponseError,
  IllegalStateError,
  InvalidArgumentError,
  RequestNotSupportedError,
} from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import {
  CheckClientConfig,
  encodeCheckClientRequestBody,
  encodeLockBatchBody,
  GetConsumerListByGroup,
  LockBatchMQ,
  parseConsumerListBody,
  parseLockBatchResponseBody,
  UnlockBatchMQ,
} from '../../protocol/headers/consumer.js';
import {
  GetMaxOffset,
  GetMinOffset,
  OffsetResponse,
  SearchOffsetByTimestamp,
} from '../../protocol/headers/offset.js';
import { parseConsumerConnection } from '../../protocol/body/consumer-admin.js';
import { parseSubscriptionGroupConfig } from '../../protocol/body/admin.js';
import { GetSubscriptionGroupConfig } from '../../protocol/headers/broker-admin.js';
import { GetConsumerConnectionList } from '../../protocol/headers/consumer-admin.js';
import type { SubscriptionData } from '../../protocol/headers/heartbeat.js';
import type { ConsumerClient } from './client-port.js';
import { sameFilter } from './subscription.js';

async function ask(
  client: ConsumerClient,
  brokerName: string,
  request: RemotingCommand,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<RemotingCommand> {
  const address = client.masterAddress(brokerName);
  if (address === undefined) throw new IllegalStateError(`no master address known for broker ${brokerName}`);
  const response = await client.request(address, request, timeoutMs, signal);
  if (response.code !== ResponseCode.SUCCESS)
    throw errorFromResponse(response, { address, requestCode: request.code });
  return response;
}

/** The `offset` answer of an offset request about one queue, asked of the queue's master. */
async function askOffset(
  client: ConsumerClient,
  mq: MessageQueue,
  code: number,
  header: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const request = createRequest(code, header, undefined, client.commandDefaults);
  return OffsetResponse.decode((await ask(client, mq.brokerName, request, timeoutMs, signal)).extFields)
    .offset;
}

/** GET_MAX_OFFSET: the offset after the last message of the queue. */
export function queueMaxOffset(
  client: ConsumerClient,
  mq: MessageQueue,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<number> {
  const header = GetMaxOffset.encode({ topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName });
  return askOffset(client, mq, GetMaxOffset.code, header, timeoutMs, signal);
}

/** GET_MIN_OFFSET: the offset of the oldest message still stored in the queue. */
export function queueMinOffset(client: ConsumerClient, mq: MessageQueue, timeoutMs: number): Promise<number> {
  const header = GetMinOffset.encode({ topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName });
  return askOffset(client, mq, GetMinOffset.code, header, timeoutMs);
}

/** SEARCH_OFFSET_BY_TIMESTAMP: the first offset stored at or after `timestamp`. */
export function searchOffset(
  client: ConsumerClient,
  mq: MessageQueue,
  timestamp: number,
  timeoutMs: number,
): Promise<number> {
  const { topic, queueId, brokerName: bname } = mq;
  const header = SearchOffsetByTimestamp.encode({ topic, queueId, timestamp, bname });
  return askOffset(client, mq, SearchOffsetByTimestamp.code, header, timeoutMs);
}

/** GET_CONSUMER_LIST_BY_GROUP from one broker; undefined when it knows no consumer of the group. */
export async function consumerIdList(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  timeoutMs: number,
): Promise<string[] | undefined> {
  const request = createRequest(
    GetConsumerListByGroup.code,
    GetConsumerListByGroup.encode({ consumerGroup: group, bname: brokerName }),
    undefined,
    client.commandDefaults,
  );
  try {
    const response = await ask(client, brokerName, request, timeoutMs);
    return response.body ? parseConsumerListBody(response.body) : undefined;
  } catch (err) {
    if (err instanceof BrokerResponseError || err instanceof RequestNotSupportedError) return undefined;
    throw err;
  }
}

/**
 * GET_CONSUMER_CONNECTION_LIST: per topic, the subscription the broker keeps for the group (one,
 * from the last heartbeat, docs/consumers.md §1.10); undefined when no member is online or it will not say.
 */
export async function groupSubscriptionTable(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  timeoutMs: number,
): Promise<Readonly<Record<string, SubscriptionData>> | undefined> {
  const request = createRequest(
    GetConsumerConnectionList.code,
    GetConsumerConnectionList.encode({ consumerGroup: group }),
    undefined,
    client.commandDefaults,
  );
  try {
    const response = await ask(client, brokerName, request, timeoutMs);
    return response.body ? parseConsumerConnection(response.body).subscriptionTable : undefined;
  } catch (err) {
    if (err instanceof BrokerResponseError || err instanceof RequestNotSupportedError) return undefined;
    throw err;
  }
}

/**
 * Which of `mine` the broker keeps for the group with another filter (another member's, from
 * the last heartbeat, which ours will replace). Asks one broker; none when it will not say.
 */
export async function subscriptionConflicts(
  client: ConsumerClient,
  group: string,
  mine: readonly SubscriptionData[],
  timeoutMs: number,
): Promise<Array<{ data: SubscriptionData; kept: SubscriptionData }>> {
  const brokerName = client.brokerNames()[0];
  if (brokerName === undefined || mine.length === 0) return [];
  const table = await groupSubscriptionTable(client, brokerName, group, timeoutMs).catch(() => undefined);
  const out: Array<{ data: SubscriptionData; kept: SubscriptionData }> = [];
  for (const data of mine) {
    const kept = table?.[data.topic];
    if (kept !== undefined && !sameFilter(kept, data)) out.push({ data, kept });
  }
  return out;
}

function lockRequest(
  code: number,
  client: ConsumerClient,
  group: string,
  mqs: readonly MessageQueue[],
): RemotingCommand {
  return createRequest(
    code,
    undefined,
    encodeLockBatchBody({
      consumerGroup: group,
      clientId: client.clientId,
      mqSet: mqs.map((mq) => ({ topic: mq.topic, brokerName: mq.brokerName, queueId: mq.queueId })),
    }),
    client.commandDefaults,
  );
}

/** LOCK_BATCH_MQ for queues of one broker; returns the queues the broker granted. */
export async function lockQueues(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  mqs: readonly MessageQueue[],
  timeoutMs: number,
): Promise<MessageQueue[]> {
  const response = await ask(
    client,
    brokerName,
    lockRequest(LockBatchMQ.code, client, group, mqs),
    timeoutMs,
  );
  return response.body ? parseLockBatchResponseBody(response.body) : [];
}

/** UNLOCK_BATCH_MQ (synchronous, so a shutdown knows the locks are free). */
export async function unlockQueues(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  mqs: readonly MessageQueue[],
  timeoutMs: number,
): Promise<void> {
  await ask(client, brokerName, lockRequest(UnlockBatchMQ.code, client, group, mqs), timeoutMs);
}

/** CHECK_CLIENT_CONFIG: does the broker support this (non-TAG) subscription? Throws when not. */
export async function checkClientConfig(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  subscriptionData: SubscriptionData,
  timeoutMs: number,
): Promise<void> {
  const request = createRequest(
    CheckClientConfig.code,
    undefined,
    encodeCheckClientRequestBody({ clientId: client.clientId, group, subscriptionData }),
    client.commandDefaults,
  );
  await ask(client, brokerName, request, timeoutMs);
}

/**
 * Java `checkClientInBroker`: every broker serving a non-TAG subscription must support it
 * (`enablePropertyFilter`); otherwise InvalidArgumentError naming the expression.
 */
export async function checkSubscriptionsSupported(
  client: ConsumerClient,
  group: string,
  subscriptions: readonly SubscriptionData[],
  queues: readonly MessageQueue[],
  timeoutMs: number,
): Promise<void> {
  for (const sub of subscriptions) {
    if (sub.expressionType === 'TAG') continue;
    const brokers = new Set(queues.filter((q) => q.topic === sub.topic).map((q) => q.brokerName));
    for (const brokerName of brokers) {
      try {
        await checkClientConfig(client, brokerName, group, sub, timeoutMs);
      } catch (err) {
        throw new InvalidArgumentError(
          'expression',
          `broker ${brokerName} refuses the ${sub.expressionType} subscription of ${sub.topic}: ${(err as Error).message}`,
          { cause: err },
        );
      }
    }
  }
}

/**
 * GET_SUBSCRIPTIONGROUP_CONFIG: does the broker keep `group` orderly (`consumeMessageOrderly`)?
 * The 5.x Proxy decides FIFO POP from it (`ReceiveMessageActivity`). Undefined when the broker
 * cannot say: it does not serve the code (4.x, a Proxy) or refuses it (the group unknown with
 * auto-creation off, ACL); a failed request throws.
 */
export async function groupConsumesOrderly(
  client: ConsumerClient,
  brokerName: string,
  group: string,
  timeoutMs: number,
): Promise<boolean | undefined> {
  const address = client.masterAddress(brokerName);
  if (address === undefined) throw new IllegalStateError(`no master address known for broker ${brokerName}`);
  const request = createRequest(
    GetSubscriptionGroupConfig.code,
    GetSubscriptionGroupConfig.encode({ group }),
    undefined,
    client.commandDefaults,
  );
  const response = await client.request(address, request, timeoutMs);
  if (response.code !== ResponseCode.SUCCESS || response.body === undefined) return undefined;
  return parseSubscriptionGroupConfig(response.body).consumeMessageOrderly === true;
}
