/** PULL_MESSAGE (11), docs/protocol.md §10.1. The SUCCESS body is concatenated stored messages. */
import { RequestCode } from '../codes.js';
import { F, declareRequest, defineHeader, type HeaderOf } from './fields.js';

export const PullSysFlag = {
  FLAG_COMMIT_OFFSET: 0x1,
  FLAG_SUSPEND: 0x2,
  FLAG_SUBSCRIPTION: 0x4,
  FLAG_CLASS_FILTER: 0x8,
  FLAG_LITE_PULL_MESSAGE: 0x10,
} as const;

/** Java `PullSysFlag.buildSysFlag`. */
export function buildPullSysFlag(
  commitOffset: boolean,
  suspend: boolean,
  subscription: boolean,
  classFilter: boolean,
  litePull = false,
): number {
  return (
    (commitOffset ? PullSysFlag.FLAG_COMMIT_OFFSET : 0) |
    (suspend ? PullSysFlag.FLAG_SUSPEND : 0) |
    (subscription ? PullSysFlag.FLAG_SUBSCRIPTION : 0) |
    (classFilter ? PullSysFlag.FLAG_CLASS_FILTER : 0) |
    (litePull ? PullSysFlag.FLAG_LITE_PULL_MESSAGE : 0)
  );
}

export function hasPullSysFlag(sysFlag: number, bit: number): boolean {
  return (sysFlag & bit) === bit;
}

/** Java `PullSysFlag.clearCommitOffsetFlag` (the broker ignores commits from slaves' reads). */
export function clearCommitOffsetFlag(sysFlag: number): number {
  return sysFlag & ~PullSysFlag.FLAG_COMMIT_OFFSET;
}

export const PullMessage = declareRequest(RequestCode.PULL_MESSAGE, 'PULL_MESSAGE', {
  consumerGroup: F.string.required(),
  topic: F.string.required(),
  queueId: F.int.required(),
  queueOffset: F.long.required(),
  maxMsgNums: F.int.required(),
  sysFlag: F.int.required(),
  commitOffset: F.long.required(),
  suspendTimeoutMillis: F.long.required(),
  subscription: F.string.optional(),
  subVersion: F.long.required(),
  expressionType: F.string.optional(),
  /** [5.x] */
  maxMsgBytes: F.int.optional(),
  bname: F.string.optional(),
});
export type PullMessageRequestHeader = HeaderOf<typeof PullMessage.spec>;

export const PullMessageResponse = defineHeader('PullMessageResponseHeader', {
  suggestWhichBrokerId: F.long.required(),
  nextBeginOffset: F.long.required(),
  minOffset: F.long.required(),
  maxOffset: F.long.required(),
  /** [5.x] */
  offsetDelta: F.long.optional(),
  /** [5.x] */
  topicSysFlag: F.int.optional(),
  /** [5.x] */
  groupSysFlag: F.int.optional(),
  /** [5.x] */
  forbiddenType: F.int.optional(),
});
export type PullMessageResponseHeader = HeaderOf<typeof PullMessageResponse.spec>;
