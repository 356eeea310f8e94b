/**
 * Broker-assigned queues (Java `RebalanceImpl#getRebalanceResultFromBroker` and
 * `updateMessageQueueAssignment`, docs/consumers.md §1.12): each rebalance round asks a broker of
 * the topic for this client's queues (QUERY_ASSIGNMENT with the strategy's name), runs a POP loop
 * per POP-mode queue (pop-consume.ts) and hands the PULL-mode ones back to the Rebalancer, which
 * pulls them as a client-side rebalance would. A topic switched to PULL also pulls its POP retry
 * topic, so messages POP left there are consumed; switched to POP, that subscription goes.
 */
import type { MessageQueue } from '../../../client/route.js';
import { errorFromResponse } from '../../../client/response-error.js';
import {
  encodeQueryAssignmentRequest,
  parseQueryAssignmentResponse,
  type MessageQueueAssignment,
} from '../../../protocol/body/assignment.js';
import { mqKey } from '../../../protocol/body/message-queue-map.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createRequest } from '../../../protocol/command.js';
import { QueryAssignment } from '../../../protocol/headers/consumer.js';
import { popRetryTopicV1 } from '../../../protocol/pop/extra-info.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../../protocol/validation.js';
import type { ConsumerClient } from '../../core/client-port.js';
import type { RebalanceEvent } from '../../core/rebalance.js';
import { runPopLoop, type PopConsumeHost, type PopQueue } from './pop-consume.js';

/** POP loops per broker-wide (queueId −1) assignment; popThresholdForQueue still bounds what they hold. */
export const POPS_IN_FLIGHT_PER_BROKER = 3;

/** Java `RebalanceImpl.QUERY_ASSIGNMENT_TIMEOUT`. */
const QUERY_ASSIGNMENT_TIMEOUT_MS = 3000;

/** QUERY_ASSIGNMENT to a random broker of `topic` (Java `findBrokerAddrByTopic`); undefined: no valid answer. */
export async function queryAssignment(
  client: ConsumerClient,
  topic: string,
  group: string,
  strategyName: string,
): Promise<MessageQueueAssignment[] | undefined> {
  const names = [...new Set((await client.subscribeQueues(topic)).map((mq) => mq.brokerName))];
  const addresses = names.map((n) => client.masterAddress(n)).filter((a): a is string => a !== undefined);
  if (addresses.length === 0) return undefined;
  const address = addresses[Math.floor(Math.random() * addresses.length)]!;
  const request = createRequest(
    QueryAssignment.code,
    undefined,
    encodeQueryAssignmentRequest({
      topic,
      consumerGroup: group,
      clientId: client.clientId,
      strategyName,
      messageModel: 'CLUSTERING',
    }),
    client.commandDefaults,
  );
  const response = await client.request(address, request, QUERY_ASSIGNMENT_TIMEOUT_MS);
  if (response.code !== ResponseCode.SUCCESS)
    throw errorFromResponse(response, { address, requestCode: request.code });
  return parseQueryAssignmentResponse(response.body);
}

export interface PopAssignmentHost extends PopConsumeHost {
  /** Adds or removes an automatic subscription; true when it changed. */
  setRetryTopic(topic: string, subscribed: boolean): boolean;
  /** The pull queues of a topic no longer subscribed leave the Rebalancer's table. */
  dropPullTopic(topic: string): Promise<void>;
  queuesChanged(event: RebalanceEvent): Promise<void>;
}

export class PopAssignments {
  /** The POP-mode queues held, by `mqKey`. */
  readonly table = new Map<string, PopQueue>();

  constructor(private readonly host: PopAssignmentHost) {}

  /** The Rebalancer's `brokerAssignment`: POP queues taken here, the PULL ones returned. */
  async assign(topic: string): Promise<MessageQueue[] | undefined> {
    const host = this.host;
    const strategy = host.options.allocateStrategy as string;
    const assignments = await queryAssignment(host.client, topic, host.wireGroup, strategy);
    if (assignments === undefined) return undefined;
    const pull: MessageQueue[] = [];
    const pop: MessageQueue[] = [];
    for (const a of assignments) (a.mode === 'POP' ? pop : pull).push(a.messageQueue);
    if (!topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
      const retryTopic = popRetryTopicV1(topic, host.wireGroup);
      if (pop.length === 0 && pull.length > 0 && host.setRetryTopic(retryTopic, true))
        await host.client.sendHeartbeatToAllBrokers();
      else if (pop.length > 0 && pull.length === 0 && host.setRetryTopic(retryTopic, false))
        await host.dropPullTopic(retryTopic);
    }
    await this.update(topic, pop);
    return pull;
  }

  /** Brings the topic's POP queues in line with `mine` (stalled loops are re-created). */
  private async update(topic: string, mine: readonly MessageQueue[]): Promise<void> {
    const wanted = new Map(mine.map((mq) => [mqKey(mq), mq]));
    const added: MessageQueue[] = [];
    const removed: MessageQueue[] = [];
    const idleLimit = this.host.options.pullMaxIdleTime;
    for (const [key, q] of [...this.table]) {
      if (q.mq.topic !== topic) continue;
      const stalled = Date.now() - q.lastPopTimestamp > idleLimit;
      if (wanted.has(key) && !stalled) continue;
      if (stalled) this.host.logger.warn('POP loop stalled; re-creating it', { mq: q.mq });
      q.dropped = true;
      this.table.delete(key);
      if (!wanted.has(key)) removed.push(q.mq);
    }
    const fresh: PopQueue[] = [];
    for (const [key, mq] of wanted) {
      if (this.table.has(key)) continue;
      const q: PopQueue = { key, mq, dropped: false, waitAck: 0, lastPopTimestamp: Date.now(), waiting: [] };
      this.table.set(key, q);
      fresh.push(q);
      added.push(mq);
    }
    if (added.length > 0 || removed.length > 0) await this.host.queuesChanged({ topic, added, removed });
    for (const q of fresh) {
      // queueId −1 pops a whole broker, whose queues the broker serves to concurrent POPs one
      // each: several POPs in flight keep the messages coming while one is on the wire (Java
      // keeps one, and waits a round trip per popBatchNums messages).
      const loops = q.mq.queueId === -1 ? POPS_IN_FLIGHT_PER_BROKER : 1;
      for (let i = 0; i < loops && !q.dropped; i++) void runPopLoop(this.host, q);
    }
  }

  /** Shutdown: every loop stops after its POP in flight. */
  dropAll(): void {
    for (const q of this.table.values()) q.dropped = true;
    this.table.clear();
  }
}
