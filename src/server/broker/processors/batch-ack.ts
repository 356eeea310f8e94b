/**
 * [5.1.3+] BATCH_ACK_MESSAGE (200151) on the embedded broker (docs/protocol.md §13.7): Java's
 * `AckMessageProcessor` for a `BatchAckMessageRequestBody`. Each entry names a checkpoint (or, with
 * reviveQueueId 999, an orderly batch) and the acked offsets as a bit set from its start offset; the
 * topic is the subscribed one and the retry flag picks the retry topic. Offsets outside the queue
 * are skipped, as Java skips them; an empty body is NO_MESSAGE, an unreadable one SYSTEM_ERROR (Java's
 * decode throws).
 *
 * Where Java answers SUCCESS whatever the checkpoints say, this broker checks every offset first, as
 * its ACK_MESSAGE does: if any has no un-acked checkpoint (already acked, revived, another group's)
 * nothing of the batch is applied and the answer is NO_MESSAGE naming those offsets, so a client
 * that acks the batch's handles again one by one learns exactly which were stale.
 */
import { ProtocolError } from '../../../errors.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { POP_ORDER_REVIVE_QUEUE } from '../../../protocol/headers/pop.js';
import { decodeBatchAckBody, type BatchAck, type BatchAckBody } from '../../../protocol/pop/batch-ack.js';
import { realTopic } from '../../../protocol/pop/extra-info.js';
import type { BrokerContext } from '../context.js';
import type { PopService } from '../pop/pop-service.js';
import type { PopCheckpoint } from '../pop/pop-state.js';

/** One entry's offsets to ack and what they were checked against. */
interface AckStep {
  ack: BatchAck;
  topic: string;
  offsets: number[];
  /** Normal entries: the checkpoint, looked up once per entry. */
  checkpoint: PopCheckpoint | undefined;
}

export function processBatchAck(
  ctx: BrokerContext,
  pop: PopService,
  request: RemotingCommand,
): RemotingCommand {
  if (request.body === undefined || request.body.length === 0)
    return createResponse(request, ResponseCode.NO_MESSAGE);
  let body: BatchAckBody;
  try {
    body = decodeBatchAckBody(request.body);
  } catch (err) {
    if (err instanceof ProtocolError) return createResponse(request, ResponseCode.SYSTEM_ERROR, err.message);
    throw err;
  }
  if (body.acks.length === 0) return createResponse(request, ResponseCode.NO_MESSAGE);
  const steps: AckStep[] = [];
  const stale: string[] = [];
  /** Offsets earlier entries of this request ack, per checkpoint or lock (one may repeat another). */
  const claimed = new Map<object, number[]>();
  let total = 0;
  for (const ack of body.acks) {
    const topic = realTopic({ retryFlag: ack.retry }, ack.topic, ack.consumerGroup);
    const config = ctx.topics.get(topic);
    // Java: an unknown topic or queue (min/max offset −1) is logged and skipped.
    if (config === undefined || ack.queueId < 0 || ack.queueId >= config.readQueueNums) continue;
    const min = ctx.store.getMinOffset(topic, ack.queueId);
    const max = ctx.store.getMaxOffset(topic, ack.queueId);
    const orderly = ack.reviveQueueId === POP_ORDER_REVIVE_QUEUE;
    const lock = orderly ? pop.state.orderLock(ack.consumerGroup, topic, ack.queueId) : undefined;
    const checkpoint = orderly
      ? undefined
      : pop.state.findCheckpoint(ack.consumerGroup, topic, ack.queueId, ack.startOffset, ack.popTime);
    // What the entry's offsets must be in (and, for a checkpoint, not yet acked): looked up once.
    const target = orderly ? (lock?.popTime === ack.popTime ? lock : undefined) : checkpoint;
    const earlier = target === undefined ? undefined : claimed.get(target);
    const offsets: number[] = [];
    // An entry's indexes are a bit set's: no offset twice within one entry.
    for (const i of ack.indexes) {
      const offset = ack.startOffset + i;
      if (offset < min || offset > max) continue;
      total++;
      offsets.push(offset);
      const ackable =
        target !== undefined &&
        earlier?.includes(offset) !== true &&
        target.offsets.includes(offset) &&
        (checkpoint === undefined || !checkpoint.acked.includes(offset));
      if (!ackable) stale.push(`${ack.consumerGroup}@${topic}@${ack.queueId}@${offset}`);
    }
    if (target !== undefined) claimed.set(target, earlier === undefined ? offsets : earlier.concat(offsets));
    steps.push({ ack, topic, offsets, checkpoint });
  }
  if (stale.length > 0)
    return createResponse(
      request,
      ResponseCode.NO_MESSAGE,
      `no un-acked message for ${stale.length} of ${total} offsets, nothing acked: ${stale.slice(0, 32).join(', ')}`,
    );
  for (const { ack, topic, offsets, checkpoint } of steps)
    if (checkpoint !== undefined) pop.state.ackAll(checkpoint, offsets);
    else
      for (const offset of offsets)
        pop.ackOrderly(ack.consumerGroup, topic, ack.queueId, ack.popTime, offset);
  return createResponse(request, ResponseCode.SUCCESS);
}
