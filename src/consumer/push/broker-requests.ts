/**
 * What a broker asks of a consumer (Java `ClientRemotingProcessor`, docs/protocol.md §10.4), through
 * the client core's inbound table: NOTIFY_CONSUMER_IDS_CHANGED (rebalance now),
 * GET_CONSUMER_RUNNING_INFO (`mqadmin consumerStatus`), CONSUME_MESSAGE_DIRECTLY,
 * RESET_CONSUMER_CLIENT_OFFSET and GET_CONSUMER_STATUS_FROM_CLIENT (`mqadmin resetOffsetByTime`).
 * Several consumers (groups) may share one client instance: handlers are registered once per
 * instance and dispatch by group. SimpleConsumer groups answer running info only.
 */
import type { ClientInstance } from '../../client/client-instance.js';
import type { InboundHandler } from '../../client/inbound.js';
import type { MessageQueue } from '../../client/route.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../protocol/command.js';
import { parseFastjsonBytes } from '../../protocol/fastjson.js';
import {
  encodeConsumeMessageDirectlyResult,
  encodeConsumerRunningInfo,
  encodeGetConsumerStatusBody,
  RunningInfoProperty,
  type ConsumeStatusData,
  type ConsumerRunningInfoData,
  type ProcessQueueInfoData,
} from '../../protocol/body/consumer-running-info.js';
import { decodeLongValue, decodeMessageQueueMap } from '../../protocol/body/message-queue-map.js';
import {
  ConsumeMessageDirectly,
  GetConsumerRunningInfo,
  GetConsumerStatusFromClient,
  NotifyConsumerIdsChanged,
  ResetConsumerClientOffset,
} from '../../protocol/headers/consumer.js';
import { expectObject } from '../../protocol/headers/fields.js';
import { decodeStoredMessages } from '../../protocol/message/stored-message.js';
import { decodePullBody } from '../core/message-view.js';
import type { PushConsumer } from './push-consumer.js';

/** What broker→client requests need of a consumer: the push consumer or the lite pull consumer. */
export type RegisteredConsumer = Pick<
  PushConsumer,
  'options' | 'wireGroup' | 'startTimestamp' | 'rebalanceNow' | 'consumeStatus' | 'resetOffset' | 'internals'
> & {
  /** Java consumeType in running info; CONSUME_PASSIVELY when absent. */
  readonly consumeType?: 'CONSUME_ACTIVELY' | 'CONSUME_PASSIVELY';
};

/**
 * A SimpleConsumer group (simple/running-info.ts): it answers GET_CONSUMER_RUNNING_INFO; it has
 * no queues to rebalance, reset or report offsets of, and consumes nothing directly.
 */
export interface RegisteredPopConsumer {
  readonly kind: 'pop';
  readonly wireGroup: string;
  runningInfo(jstack: boolean): ConsumerRunningInfoData;
}

type Registered = RegisteredConsumer | RegisteredPopConsumer;

function isPop(c: Registered): c is RegisteredPopConsumer {
  return 'kind' in c && c.kind === 'pop';
}

const registry = new WeakMap<ClientInstance, Map<string, Registered>>();
const handlers = new WeakMap<ClientInstance, Array<[number, InboundHandler]>>();

/** Adds a consumer to its instance; false when the group already runs in this client. */
export function registerConsumer(instance: ClientInstance, group: string, consumer: Registered): boolean {
  let groups = registry.get(instance);
  if (groups === undefined) {
    groups = new Map();
    registry.set(instance, groups);
    const table = groups;
    const list: Array<[number, InboundHandler]> = [
      [NotifyConsumerIdsChanged.code, (r) => notifyIdsChanged(table, r)],
      [GetConsumerRunningInfo.code, (r) => runningInfo(table, r)],
      [ConsumeMessageDirectly.code, (r) => consumeDirectly(table, r)],
      [ResetConsumerClientOffset.code, (r) => resetOffset(table, r)],
      [GetConsumerStatusFromClient.code, (r) => consumerStatus(table, r)],
    ];
    for (const [code, h] of list) instance.inbound.register(code, h);
    handlers.set(instance, list);
  }
  if (groups.has(group)) return false;
  groups.set(group, consumer);
  return true;
}

export function unregisterConsumer(instance: ClientInstance, group: string, consumer: Registered): void {
  const groups = registry.get(instance);
  if (groups?.get(group) !== consumer) return;
  groups.delete(group);
  if (groups.size > 0) return;
  for (const [code, h] of handlers.get(instance) ?? []) instance.inbound.unregister(code, h);
  registry.delete(instance);
  handlers.delete(instance);
}

function noSuchGroup(request: RemotingCommand, group: string): RemotingCommand {
  return createResponse(
    request,
    ResponseCode.SYSTEM_ERROR,
    `The Consumer Group <${group}> not exist in this consumer`,
  );
}

function notifyIdsChanged(groups: Map<string, Registered>, request: RemotingCommand): undefined {
  const { consumerGroup } = NotifyConsumerIdsChanged.decode(request.extFields);
  const consumer = groups.get(consumerGroup);
  if (consumer !== undefined && !isPop(consumer)) void consumer.rebalanceNow();
  return undefined;
}

async function runningInfo(
  groups: Map<string, Registered>,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const { consumerGroup, jstackEnable } = GetConsumerRunningInfo.decode(request.extFields);
  const consumer = groups.get(consumerGroup);
  if (consumer === undefined) return noSuchGroup(request, consumerGroup);
  if (isPop(consumer))
    return createResponse(
      request,
      ResponseCode.SUCCESS,
      undefined,
      undefined,
      encodeConsumerRunningInfo(consumer.runningInfo(jstackEnable === true)),
    );
  const o = consumer.options;
  const { table, offsetStore, subscriptions, pool } = consumer.internals;
  const properties: Record<string, string> = {};
  for (const [k, v] of Object.entries(o))
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') properties[k] = String(v);
  properties.namesrvAddr = o.namesrvAddr.join(';');
  properties[RunningInfoProperty.PROP_NAMESERVER_ADDR] = o.namesrvAddr.join(';');
  properties[RunningInfoProperty.PROP_THREADPOOL_CORE_SIZE] = String(o.consumeThreadMax);
  properties[RunningInfoProperty.PROP_CONSUME_ORDERLY] = String(o.consumeOrderly);
  properties[RunningInfoProperty.PROP_CONSUME_TYPE] = consumer.consumeType ?? 'CONSUME_PASSIVELY';
  properties[RunningInfoProperty.PROP_CLIENT_VERSION] = 'V4_9_7';
  properties[RunningInfoProperty.PROP_CONSUMER_START_TIMESTAMP] = String(consumer.startTimestamp);
  properties.inFlightHandlers = String(pool?.inFlight ?? 0);
  const mqTable: Array<[MessageQueue, ProcessQueueInfoData]> = [];
  for (const e of table.values())
    mqTable.push([e.mq, e.pq.info((await offsetStore?.readOffset(e.mq, 'MEMORY')) ?? -1)]);
  const statusTable: Record<string, ConsumeStatusData> = {};
  for (const s of subscriptions) statusTable[s.topic] = consumer.consumeStatus(s.topic);
  const body = encodeConsumerRunningInfo({
    properties,
    subscriptionSet: subscriptions,
    mqTable,
    statusTable,
    jstack: jstackEnable
      ? `node ${process.version} pid ${process.pid}: no thread dump in JavaScript`
      : undefined,
  });
  return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
}

async function consumeDirectly(
  groups: Map<string, Registered>,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const h = ConsumeMessageDirectly.decode(request.extFields);
  const consumer = groups.get(h.consumerGroup);
  if (consumer === undefined) return noSuchGroup(request, h.consumerGroup);
  if (isPop(consumer))
    return createResponse(
      request,
      ResponseCode.SYSTEM_ERROR,
      `The Consumer Group <${h.consumerGroup}> is a SimpleConsumer: it receives, it cannot consume a message directly`,
    );
  const body = request.body ?? new Uint8Array(0);
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const first = decodeStoredMessages(buf)[0];
  if (first === undefined)
    return createResponse(request, ResponseCode.SYSTEM_ERROR, 'no message in the request body');
  const messages = decodePullBody(buf, {
    queue: { topic: first.topic, brokerName: h.brokerName ?? '', queueId: first.queueId },
    consumerGroup: consumer.wireGroup,
    namespace: consumer.options.namespace,
  });
  const started = Date.now();
  const handler = consumer.internals.handler;
  let consumeResult: 'CR_SUCCESS' | 'CR_THROW_EXCEPTION' = 'CR_SUCCESS';
  let remark: string | undefined;
  try {
    if (typeof handler === 'function') for (const m of messages) await handler(m);
    else if (handler !== undefined) await handler.eachBatch(messages);
  } catch (err) {
    consumeResult = 'CR_THROW_EXCEPTION';
    remark = err instanceof Error ? (err.stack ?? err.message) : String(err);
  }
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeConsumeMessageDirectlyResult({
      order: consumer.options.consumeOrderly,
      autoCommit: true,
      consumeResult,
      remark,
      spentTimeMills: Date.now() - started,
    }),
  );
}

function resetOffset(groups: Map<string, Registered>, request: RemotingCommand): undefined {
  const h = ResetConsumerClientOffset.decode(request.extFields);
  const consumer = groups.get(h.group);
  // A POP group's offsets are the broker's: nothing to reset here.
  if (consumer === undefined || isPop(consumer) || request.body === undefined) return undefined;
  const parsed = expectObject(parseFastjsonBytes(request.body), 'ResetOffsetBody');
  const table = decodeMessageQueueMap(parsed.offsetTable, decodeLongValue, 'offsetTable');
  void consumer.resetOffset(
    h.topic,
    [...table.values()].map((e) => ({ mq: e.mq, offset: e.value })),
  );
  return undefined;
}

async function consumerStatus(
  groups: Map<string, Registered>,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const h = GetConsumerStatusFromClient.decode(request.extFields);
  const consumer = groups.get(h.group);
  if (consumer === undefined) return noSuchGroup(request, h.group);
  const offsets: Array<[MessageQueue, number]> = [];
  const store = isPop(consumer) ? undefined : consumer.internals.offsetStore;
  for (const e of isPop(consumer) ? [] : consumer.internals.table.values()) {
    if (e.mq.topic !== h.topic || store === undefined) continue;
    offsets.push([e.mq, await store.readOffset(e.mq, 'MEMORY')]);
  }
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    encodeGetConsumerStatusBody(offsets),
  );
}
