/**
 * `SimpleConsumer#lag()` (docs/consumers.md §3.6): per queue of every subscribed topic and its
 * POP retry topic, the group's backlog (not yet handed out) and in-flight count (handed out, not
 * acked) from the broker's GET_CONSUME_STATS. The embedded broker counts the group's in-flight
 * messages itself (`popInflight`); a Java broker does not, so there the figure is this consumer's
 * own (held.ts), and messages other members hold are not in it.
 */
import { withoutNamespace } from '../../client/namespace.js';
import { errorFromResponse } from '../../client/response-error.js';
import { IllegalStateError } from '../../errors.js';
import { parseConsumeStats } from '../../protocol/body/consumer-admin.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { GetConsumeStats } from '../../protocol/headers/consumer-admin.js';
import { popRetryTopicV1 } from '../../protocol/pop/extra-info.js';
import type { ConsumerClient } from '../core/client-port.js';
import { heldQueueKey, type HeldMessages } from './held.js';

/** One queue of a POP group. */
export interface PopQueueLag {
  /** The subscribed topic, or its POP retry topic `%RETRY%<group>_<topic>` (wire name). */
  topic: string;
  brokerName: string;
  queueId: number;
  /** The broker's max offset (next offset to be written). */
  brokerOffset: number;
  /** The group's offset: POP commits it as it hands messages out. */
  consumerOffset: number;
  /** brokerOffset − consumerOffset: not yet handed out. */
  backlog: number;
  /**
   * Handed out and not acked yet (invisible): the group's count on the embedded broker, this
   * consumer's own on a Java broker.
   */
  inFlight: number;
  /** backlog + inFlight: what the group still has to finish. */
  lag: number;
}

export interface LagPort {
  client: ConsumerClient;
  wireGroup: string;
  namespace: string | undefined;
  timeoutMs: number;
  held: HeldMessages;
}

/** The queues of `wireTopic` (and its retry topic) on each of `brokerNames`. */
export async function popLag(
  port: LagPort,
  targets: ReadonlyArray<{ wireTopic: string; brokerName: string }>,
  signal: AbortSignal | undefined,
): Promise<PopQueueLag[]> {
  const held = port.held.byQueue();
  const out: PopQueueLag[] = [];
  for (const t of targets) {
    const address = port.client.masterAddress(t.brokerName);
    if (address === undefined)
      throw new IllegalStateError(`no master address known for broker ${t.brokerName}`);
    for (const topic of [t.wireTopic, popRetryTopicV1(t.wireTopic, port.wireGroup)]) {
      const request = createRequest(
        GetConsumeStats.code,
        GetConsumeStats.encode({ consumerGroup: port.wireGroup, topic }),
        undefined,
        port.client.commandDefaults,
      );
      const response = await port.client.request(address, request, port.timeoutMs, signal);
      if (response.code !== ResponseCode.SUCCESS)
        throw errorFromResponse(response, { address, requestCode: request.code });
      const stats = parseConsumeStats(response.body ?? '{}');
      for (const { mq, value } of stats.offsetTable.values()) {
        if (mq.brokerName !== t.brokerName) continue;
        const backlog = Math.max(0, value.brokerOffset - value.consumerOffset);
        const own = held.get(heldQueueKey({ queue: { ...mq, topic } })) ?? 0;
        const inFlight = value.popInflight ?? own;
        out.push({
          topic: topic === t.wireTopic ? withoutNamespace(topic, port.namespace) : topic,
          brokerName: mq.brokerName,
          queueId: mq.queueId,
          brokerOffset: value.brokerOffset,
          consumerOffset: value.consumerOffset,
          backlog,
          inFlight,
          lag: backlog + inFlight,
        });
      }
    }
  }
  return out.sort(
    (a, b) =>
      a.topic.localeCompare(b.topic) || a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId,
  );
}
