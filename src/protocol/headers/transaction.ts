/** END_TRANSACTION (37) and CHECK_TRANSACTION_STATE (39), docs/protocol.md §11. */
import { RequestCode } from '../codes.js';
import { F, declareRequest, type HeaderOf } from './fields.js';

export const EndTransaction = declareRequest(RequestCode.END_TRANSACTION, 'END_TRANSACTION', {
  producerGroup: F.string.required(),
  tranStateTableOffset: F.long.required(),
  commitLogOffset: F.long.required(),
  /** MessageSysFlag: 8 commit, 0xC rollback, 0 unknown. */
  commitOrRollback: F.int.required(),
  fromTransactionCheck: F.bool.withDefault(false),
  msgId: F.string.required(),
  transactionId: F.string.optional(),
  bname: F.string.optional(),
  /** [5.x] the message's topic (ACL resource); 4.9 brokers ignore it. */
  topic: F.string.optional(),
});
export type EndTransactionRequestHeader = HeaderOf<typeof EndTransaction.spec>;

export const CheckTransactionState = declareRequest(
  RequestCode.CHECK_TRANSACTION_STATE,
  'CHECK_TRANSACTION_STATE',
  {
    tranStateTableOffset: F.long.required(),
    commitLogOffset: F.long.required(),
    msgId: F.string.optional(),
    transactionId: F.string.optional(),
    offsetMsgId: F.string.optional(),
    bname: F.string.optional(),
  },
);
export type CheckTransactionStateRequestHeader = HeaderOf<typeof CheckTransactionState.spec>;
