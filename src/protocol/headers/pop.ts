/**
 * [5.x] POP consumption over remoting (docs/protocol.md §13.1): POP_MESSAGE
 * (200050), ACK_MESSAGE (200051), CHANGE_MESSAGE_INVISIBLETIME (200053), NOTIFICATION (200054) and
 * BATCH_ACK_MESSAGE (200151, no header: its JSON body is `protocol/pop/batch-ack.ts`), with their
 * response headers. The receipt handle (`extraInfo`) is in `protocol/pop/extra-info.ts`.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

/** Java `ConsumeInitMode`: where a group without a committed offset starts popping. */
export const ConsumeInitMode = { MIN: 0, MAX: 1 } as const;

/** `KeyBuilder.POP_ORDER_REVIVE_QUEUE`: the reviveQid of an orderly POP (`ExtraInfoUtil.isOrder`). */
export const POP_ORDER_REVIVE_QUEUE = 999;

/** The broker rejects a POP for more than this many messages (`INVALID_PARAMETER`). */
export const POP_MAX_MSG_NUMS = 32;

export const PopMessage = declareRequest(RequestCode.POP_MESSAGE, 'POP_MESSAGE', {
  consumerGroup: F.string.required(),
  /** The subscribed topic; the broker derives the retry topic itself. */
  topic: F.string.required(),
  /** −1: every read queue of this broker. */
  queueId: F.int.required(),
  maxMsgNums: F.int.required(),
  /** ms */
  invisibleTime: F.long.required(),
  /** Long-poll time, ms; 0 = answer at once. */
  pollTime: F.long.required(),
  /** Client clock, ms; the broker answers POLLING_TIMEOUT when the request arrives too late. */
  bornTime: F.long.required(),
  initMode: F.int.required(),
  /** `TAG` / `SQL92`. */
  expType: F.string.optional(),
  exp: F.string.optional(),
  order: F.bool.optional(),
  attemptId: F.string.optional(),
  bname: F.string.optional(),
});
export type PopMessageRequestHeader = HeaderOf<typeof PopMessage.spec>;

export const PopMessageResponse = defineHeader('PopMessageResponseHeader', {
  popTime: F.long.required(),
  invisibleTime: F.long.required(),
  reviveQid: F.int.required(),
  restNum: F.long.required(),
  /** `;`-list of `retryFlag queueId startOffset`. */
  startOffsetInfo: F.string.optional(),
  /** `;`-list of `retryFlag queueId o1,o2,…`. */
  msgOffsetInfo: F.string.optional(),
  /** Orderly only: `retryFlag qo<queueId>%<offset> count` and `retryFlag queueId count`. */
  orderCountInfo: F.string.optional(),
});
export type PopMessageResponseHeader = HeaderOf<typeof PopMessageResponse.spec>;

export const AckMessage = declareRequest(RequestCode.ACK_MESSAGE, 'ACK_MESSAGE', {
  consumerGroup: F.string.required(),
  /** The real topic: the retry topic when the handle's retryFlag says so. */
  topic: F.string.required(),
  queueId: F.int.required(),
  /** The whole receipt handle. */
  extraInfo: F.string.required(),
  /** The message's queue offset (`msgQueueOffset` of the handle). */
  offset: F.long.required(),
  bname: F.string.optional(),
});
export type AckMessageRequestHeader = HeaderOf<typeof AckMessage.spec>;

/** Many acks in one request (5.1.3+ brokers); the body is `protocol/pop/batch-ack.ts`. */
export const BatchAckMessage = declareRequest(RequestCode.BATCH_ACK_MESSAGE, 'BATCH_ACK_MESSAGE', {});

export const ChangeInvisibleTime = declareRequest(
  RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
  'CHANGE_MESSAGE_INVISIBLETIME',
  {
    consumerGroup: F.string.required(),
    topic: F.string.required(),
    queueId: F.int.required(),
    extraInfo: F.string.required(),
    offset: F.long.required(),
    /** New invisible time from now, ms. */
    invisibleTime: F.long.required(),
    bname: F.string.optional(),
  },
);
export type ChangeInvisibleTimeRequestHeader = HeaderOf<typeof ChangeInvisibleTime.spec>;

export const ChangeInvisibleTimeResponse = defineHeader('ChangeInvisibleTimeResponseHeader', {
  popTime: F.long.required(),
  invisibleTime: F.long.required(),
  reviveQid: F.int.required(),
});
export type ChangeInvisibleTimeResponseHeader = HeaderOf<typeof ChangeInvisibleTimeResponse.spec>;

export const Notification = declareRequest(RequestCode.NOTIFICATION, 'NOTIFICATION', {
  consumerGroup: F.string.required(),
  topic: F.string.required(),
  queueId: F.int.required(),
  pollTime: F.long.required(),
  bornTime: F.long.required(),
  order: F.bool.optional(),
  attemptId: F.string.optional(),
  bname: F.string.optional(),
});
export type NotificationRequestHeader = HeaderOf<typeof Notification.spec>;

export const NotificationResponse = defineHeader('NotificationResponseHeader', {
  hasMsg: F.bool.required(),
  pollingFull: F.bool.optional(),
});
