/**
 * One POP_MESSAGE of a SimpleConsumer (docs/consumers.md §3): the request for every queue of one
 * broker of a subscribed topic (queueId −1, long polling), its answer read, and the FOUND body
 * turned into received messages with their receipt handles (pop-response.ts, batched-ack.ts).
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { errorFromResponse } from '../../client/response-error.js';
import { PopNotSupportedError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../protocol/command.js';
import { ConsumeInitMode, PopMessage, PopMessageResponse } from '../../protocol/headers/pop.js';
import { decodePullBody, markPopped } from '../core/message-view.js';
import { markReceived } from './batched-ack.js';
import { parsedReceiptHandles, type PoppedMessage } from './pop-response.js';
import type { PopTarget } from './pop-targets.js';

/** Java `PullAPIWrapper#popAsync`: the RPC waits the poll time plus this. */
const POP_RPC_EXTRA_MS = 10_000;

/** What a POP needs of its SimpleConsumer. */
export interface PopPort {
  /** The group as the application names it, and on the wire. */
  readonly consumerGroup: string;
  readonly wireGroup: string;
  readonly namespace: string | undefined;
  /** `awaitDuration`: how long the broker may hold the POP. */
  readonly pollTimeMs: number;
  readonly logger: Logger;
  /** True once the consumer is shutting down: a POP that fails then brings nothing, no error. */
  closed(): boolean;
}

/** What one POP asks for. */
export interface PopAsk {
  readonly target: PopTarget;
  /** Pop orderly (FIFO). */
  readonly order: boolean;
  readonly maxMessages: number;
  readonly invisibleDurationMs: number;
}

/**
 * Sends one POP to `address` and resolves to the messages it brought ([] when none came in the
 * poll time). PopNotSupportedError from a broker without POP; a typed error for other refusals.
 */
export async function popFrom(
  port: PopPort,
  instance: ClientInstance,
  address: string,
  ask: PopAsk,
): Promise<PoppedMessage[]> {
  const t = ask.target;
  const pollTime = port.pollTimeMs;
  const request = createRequest(
    PopMessage.code,
    PopMessage.encode({
      consumerGroup: port.wireGroup,
      topic: t.wireTopic,
      queueId: -1,
      maxMsgNums: ask.maxMessages,
      invisibleTime: ask.invisibleDurationMs,
      pollTime,
      bornTime: Date.now(),
      initMode: ConsumeInitMode.MAX,
      expType: 'TAG',
      exp: t.expression,
      order: ask.order,
      bname: t.brokerName,
    }),
    undefined,
    instance.commandDefaults,
  );
  let response: RemotingCommand;
  try {
    response = await instance.pool.request(address, request, pollTime + POP_RPC_EXTRA_MS);
  } catch (err) {
    if (port.closed()) return [];
    throw err;
  }
  switch (response.code) {
    case ResponseCode.SUCCESS:
      return messagesOf(port, response, t, ask.order);
    case ResponseCode.POLLING_TIMEOUT:
    case ResponseCode.PULL_NOT_FOUND:
      return [];
    case ResponseCode.POLLING_FULL:
      port.logger.warn('POP polling full', { broker: t.brokerName, topic: t.wireTopic });
      return [];
    case ResponseCode.REQUEST_CODE_NOT_SUPPORTED:
      throw new PopNotSupportedError(t.brokerName, address);
    default:
      throw errorFromResponse(response, { address, permission: 'SUB', requestCode: request.code });
  }
}

function messagesOf(port: PopPort, response: RemotingCommand, t: PopTarget, order: boolean): PoppedMessage[] {
  const header = PopMessageResponse.decode(response.extFields);
  const decoded = decodePullBody(response.body ?? new Uint8Array(0), {
    queue: { topic: t.wireTopic, brokerName: t.brokerName, queueId: -1 },
    consumerGroup: port.wireGroup,
    namespace: port.namespace,
  });
  const handles = parsedReceiptHandles(decoded, header, t.brokerName, order);
  const group = port.consumerGroup;
  // Java sets the request's topic on every message (retry messages included): an own property of
  // the view (a spread keeps it), from one descriptor per response. The other fields are set the
  // same way in the same order on every message, so they share one shape (a defineProperties
  // of three fresh descriptors per message cost 5 % of a drain).
  const topic = { value: t.userTopic, enumerable: true };
  return decoded.map((m, i) => {
    markPopped(m, header.popTime);
    Object.defineProperty(m, 'topic', topic);
    return markReceived(m, handles[i]!, group);
  });
}
