/**
 * Acks of POP receipt handles, batched (docs/consumers.md §3.8): the acks asked for in one turn of
 * the event loop, or while the broker has its most ack requests in flight (a few), go as one
 * BATCH_ACK_MESSAGE, merged per checkpoint (`retry@queueId@startOffset@popTime`, as Java's
 * `MQClientAPIImpl#batchAckMessageAsync` merges); a lone ack goes as ACK_MESSAGE. Shared by the
 * SimpleConsumer and the POP-mode PushConsumer.
 *
 * A broker that answers BATCH_ACK with REQUEST_CODE_NOT_SUPPORTED (5.0–5.1.2) is remembered and
 * gets one ACK_MESSAGE per handle from then on. Java's broker answers a whole batch with one code:
 * when it is not SUCCESS the handles of that batch are acked again one by one with ACK_MESSAGE, so
 * each message gets its own answer (the embedded broker applies nothing of a batch it refuses;
 * Java's refuses only orderly offsets it cannot commit, and acking those again is harmless).
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { errorFromResponse } from '../../client/response-error.js';
import { InvalidReceiptHandleError, PopNotSupportedError, ProtocolError } from '../../errors.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import { AckMessage, BatchAckMessage } from '../../protocol/headers/pop.js';
import { encodeBatchAckBody, MAX_BIT_INDEX, type BatchAck } from '../../protocol/pop/batch-ack.js';
import { parseExtraInfo, realTopic, type ExtraInfo } from '../../protocol/pop/extra-info.js';

/** One handle to ack. */
export interface PopAckTarget {
  readonly receiptHandle: string;
  /** The subscribed topic on the wire (namespace applied), not the retry topic. */
  readonly wireTopic: string;
  /** The group on the wire. */
  readonly wireGroup: string;
  /** `receiptHandle` parsed, when the caller has it (it built the handle): not parsed again. */
  readonly info?: ExtraInfo | undefined;
}

/** What the acker needs of its consumer. */
export interface PopAckerPort {
  readonly timeoutMs: number;
  /** The running instance; throws (IllegalStateError) when the consumer is not running. */
  running(): ClientInstance;
  /** A broker's master address; throws when none is known. */
  address(brokerName: string): string;
}

/** The handle parsed and checked: well-formed, not expired at `now`. InvalidReceiptHandleError otherwise. */
export function checkedHandle(handle: string, now: number, parsed?: ExtraInfo): ExtraInfo {
  let info: ExtraInfo;
  try {
    info = parsed ?? parseExtraInfo(handle);
  } catch (err) {
    if (err instanceof ProtocolError)
      throw new InvalidReceiptHandleError(handle, err.message, { cause: err });
    throw err;
  }
  if (info.popTime + info.invisibleTime <= now)
    throw new InvalidReceiptHandleError(
      handle,
      `expired ${now - info.popTime - info.invisibleTime} ms ago; the message will be delivered again`,
    );
  const index = info.msgQueueOffset - info.ckQueueOffset;
  if (index < 0 || index > MAX_BIT_INDEX)
    throw new InvalidReceiptHandleError(handle, 'its offset is not within its checkpoint');
  return info;
}

/** The ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME header fields of a handle (docs/protocol.md §13.1). */
export function ackHeaderFields(target: PopAckTarget, info: ExtraInfo) {
  return {
    consumerGroup: target.wireGroup,
    topic: realTopic(info, target.wireTopic, target.wireGroup),
    queueId: info.queueId,
    extraInfo: target.receiptHandle,
    offset: info.msgQueueOffset,
    bname: info.brokerName,
  };
}

/** An ACK / CHANGE_INVISIBLE answer: the response when SUCCESS, else the typed error. */
export function ackOutcome(
  response: RemotingCommand,
  handle: string,
  info: ExtraInfo,
  address: string,
  requestCode: number,
): RemotingCommand {
  if (response.code === ResponseCode.SUCCESS) return response;
  if (response.code === ResponseCode.NO_MESSAGE)
    throw new InvalidReceiptHandleError(
      handle,
      `the broker has no un-acked message for it: ${response.remark ?? ''}`,
    );
  if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
    throw new PopNotSupportedError(info.brokerName, address);
  throw errorFromResponse(response, { address, requestCode });
}

/**
 * Where the outcomes of one `ack` or `ackAll` call go: told once per ack, by its index in the call.
 * One per call, not a closure per ack (a drain's per-message closures showed in its GC time).
 */
export interface AckOutcomes {
  /** `err` undefined when the broker applied ack `index`, else why not. */
  told(index: number, err: unknown): void;
}

/** The outcome of one `ack`: its promise. */
class OneAck implements AckOutcomes {
  constructor(
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {}
  told(_index: number, err: unknown): void {
    if (err === undefined) this.resolve();
    else this.reject(err);
  }
}

/** The outcomes of one `ackAll`: each to `onOutcome`, then one promise once all were told. */
class AllAcks implements AckOutcomes {
  constructor(
    private left: number,
    private readonly onOutcome: (index: number, err: unknown) => void,
    private readonly resolve: () => void,
  ) {}
  told(index: number, err: unknown): void {
    this.onOutcome(index, err);
    if (--this.left === 0) this.resolve();
  }
}

interface PendingAck {
  target: PopAckTarget;
  info: ExtraInfo;
  /** Told once, under `index`. */
  outcomes: AckOutcomes;
  index: number;
}

/** Tells `p`'s caller its outcome: undefined when the broker applied it, else why not. */
function settle(p: PendingAck, err?: unknown): void {
  p.outcomes.told(p.index, err);
}

/**
 * Ack requests one broker may have in flight from one acker. More acks wait and merge into the next
 * request. One at a time made every receiver of a busy consumer wait for the others' acks (a drain
 * with 16 receivers ran slower than one ack request per message); a few let them overlap.
 */
export const ACK_REQUESTS_IN_FLIGHT_PER_BROKER = 4;

/** Per broker name: acks waiting for the next request, and the requests in flight. */
interface BrokerQueue {
  pending: PendingAck[];
  inFlight: number;
  /** A flush is scheduled for the end of this turn of the event loop. */
  scheduled: boolean;
}

export class PopAcker {
  private readonly brokers = new Map<string, BrokerQueue>();
  /** Addresses that answered BATCH_ACK with REQUEST_CODE_NOT_SUPPORTED. */
  private readonly noBatch = new Set<string>();
  /** Requests sent, by kind (for tests and benchmarks). */
  readonly sent = { ack: 0, batchAck: 0 };

  constructor(private readonly port: PopAckerPort) {}

  /**
   * Acks one handle; resolves when the broker applied it. A handle that is malformed or expired
   * rejects at once (InvalidReceiptHandleError, nothing sent), as does a consumer not running.
   */
  ack(target: PopAckTarget): Promise<void> {
    return new Promise<void>((resolve, reject) => this.enqueue(target, new OneAck(resolve, reject), 0));
  }

  /**
   * `ack` of each target, in one go, with one promise for them all (a drain's per-message
   * promises were a tenth of its client CPU): `onOutcome(i, err)` is told once per target, `err`
   * undefined when the broker applied it, and the promise resolves once every target was told.
   * It never rejects; a target that is malformed or expired, or a consumer not running, is told
   * at once with nothing sent.
   */
  ackAll(targets: readonly PopAckTarget[], onOutcome: (index: number, err: unknown) => void): Promise<void> {
    if (targets.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) =>
      this.submit(targets, new AllAcks(targets.length, onOutcome, resolve)),
    );
  }

  /**
   * `ack` of each target, without a promise: `outcomes.told(i, err)` once per target, `err`
   * undefined when the broker applied it (a malformed or expired target, or a consumer not
   * running, is told at once with nothing sent).
   */
  submit(targets: readonly PopAckTarget[], outcomes: AckOutcomes): void {
    for (let i = 0; i < targets.length; i++) this.enqueue(targets[i]!, outcomes, i);
  }

  /** `ack` of each target, in one go: one outcome per target, in order. */
  ackMany(targets: readonly PopAckTarget[]): Array<Promise<void>> {
    return targets.map((t) => this.ack(t));
  }

  /** Queues one ack for the broker's next request; `outcomes` is told its outcome once, as `index`. */
  private enqueue(target: PopAckTarget, outcomes: AckOutcomes, index: number): void {
    let info: ExtraInfo;
    try {
      this.port.running();
      info = checkedHandle(target.receiptHandle, Date.now(), target.info);
    } catch (err) {
      outcomes.told(index, err);
      return;
    }
    const queue = this.queueOf(info.brokerName);
    queue.pending.push({ target, info, outcomes, index });
    if (!queue.scheduled && queue.inFlight < ACK_REQUESTS_IN_FLIGHT_PER_BROKER) {
      queue.scheduled = true;
      setImmediate(() => {
        queue.scheduled = false;
        this.flush(info.brokerName);
      });
    }
  }

  /** True once `address` answered BATCH_ACK with REQUEST_CODE_NOT_SUPPORTED. */
  servesOnlySingleAcks(address: string): boolean {
    return this.noBatch.has(address);
  }

  private queueOf(brokerName: string): BrokerQueue {
    let q = this.brokers.get(brokerName);
    if (q === undefined) {
      q = { pending: [], inFlight: 0, scheduled: false };
      this.brokers.set(brokerName, q);
    }
    return q;
  }

  private flush(brokerName: string): void {
    const queue = this.queueOf(brokerName);
    if (queue.inFlight >= ACK_REQUESTS_IN_FLIGHT_PER_BROKER || queue.pending.length === 0) return;
    const batch = queue.pending;
    queue.pending = [];
    queue.inFlight++;
    void this.send(brokerName, batch)
      .catch((err: unknown) => {
        // A rejection without a reason must still read as a failure.
        for (const p of batch) settle(p, err ?? new Error('ack request failed'));
      })
      .finally(() => {
        queue.inFlight--;
        if (queue.pending.length > 0) {
          if (!queue.scheduled) this.flush(brokerName);
        } else if (queue.inFlight === 0 && !queue.scheduled) this.brokers.delete(brokerName);
      });
  }

  /** One request for `batch` (or one per ack where batches are not served); settles every ack. */
  private async send(brokerName: string, batch: PendingAck[]): Promise<void> {
    const instance = this.port.running();
    const address = this.port.address(brokerName);
    if (batch.length === 1 || this.noBatch.has(address)) {
      await this.eachAlone(instance, address, batch);
      return;
    }
    const request = createRequest(
      BatchAckMessage.code,
      undefined,
      encodeBatchAckBody({ brokerName, acks: mergeByCheckpoint(batch) }),
      instance.commandDefaults,
    );
    this.sent.batchAck++;
    const response = await instance.pool.request(address, request, this.port.timeoutMs);
    if (response.code === ResponseCode.SUCCESS) {
      for (const p of batch) settle(p);
      return;
    }
    if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED) this.noBatch.add(address);
    await this.eachAlone(instance, address, batch);
  }

  /** ACK_MESSAGE per ack, in parallel; each settles its own promise. */
  private async eachAlone(instance: ClientInstance, address: string, batch: PendingAck[]): Promise<void> {
    await Promise.all(
      batch.map(async (p) => {
        try {
          const request = createRequest(
            AckMessage.code,
            AckMessage.encode(ackHeaderFields(p.target, p.info)),
            undefined,
            instance.commandDefaults,
          );
          this.sent.ack++;
          const response = await instance.pool.request(address, request, this.port.timeoutMs);
          ackOutcome(response, p.target.receiptHandle, p.info, address, AckMessage.code);
          settle(p);
        } catch (err) {
          settle(p, err);
        }
      }),
    );
  }
}

/** BatchAck entries of `batch`: one per group, topic and checkpoint, a bit per acked offset. */
function mergeByCheckpoint(batch: readonly PendingAck[]): BatchAck[] {
  const merged = new Map<string, BatchAck>();
  let last: BatchAck | undefined;
  for (const { target, info } of batch) {
    // Acks of one POP come in a row: the previous entry first, a key only when it differs.
    let entry = last !== undefined && sameCheckpoint(last, target, info) ? last : undefined;
    if (entry === undefined) {
      const key = `${target.wireGroup}@${target.wireTopic}@${info.retryFlag}@${info.queueId}@${info.ckQueueOffset}@${info.popTime}`;
      entry = merged.get(key) ?? newEntry(merged, key, target, info);
    }
    entry.indexes.push(info.msgQueueOffset - info.ckQueueOffset);
    last = entry;
  }
  return [...merged.values()];
}

function newEntry(
  merged: Map<string, BatchAck>,
  key: string,
  target: PopAckTarget,
  info: ExtraInfo,
): BatchAck {
  const entry: BatchAck = {
    consumerGroup: target.wireGroup,
    topic: target.wireTopic,
    retry: info.retryFlag,
    startOffset: info.ckQueueOffset,
    queueId: info.queueId,
    reviveQueueId: info.reviveQid,
    popTime: info.popTime,
    invisibleTime: info.invisibleTime,
    indexes: [],
  };
  merged.set(key, entry);
  return entry;
}

function sameCheckpoint(entry: BatchAck, target: PopAckTarget, info: ExtraInfo): boolean {
  return (
    entry.popTime === info.popTime &&
    entry.startOffset === info.ckQueueOffset &&
    entry.queueId === info.queueId &&
    entry.retry === info.retryFlag &&
    entry.topic === target.wireTopic &&
    entry.consumerGroup === target.wireGroup
  );
}
