/**
 * Transactional messages (docs/protocol.md §11; Java `TransactionMQProducer`):
 * `sendMessageInTransaction(message, executeLocal)` sends a half message (TRAN_MSG, PGROUP, the
 * prepared sysFlag), runs the local transaction and ends it with END_TRANSACTION (oneway, as
 * Java) carrying its outcome. A local transaction that throws, times out or answers anything but
 * COMMIT/ROLLBACK reports UNKNOWN and leaves the decision to the broker's check-back: the broker
 * sends CHECK_TRANSACTION_STATE for the group, answered (through the client instance's inbound
 * table, transaction-checks.ts) by `checkListener` and another END_TRANSACTION.
 */
import { IllegalStateError, InvalidArgumentError } from '../errors.js';
import { createRequest } from '../protocol/command.js';
import { EndTransaction } from '../protocol/headers/transaction.js';
import { decodeOffsetMsgId } from '../protocol/message/message-id.js';
import { appendProperty, PropertyKey } from '../protocol/message/properties.js';
import { MessageSysFlag } from '../protocol/message/sysflag.js';
import { checkInt, checkObject, keyList } from '../options.js';
import { wrapNamespace } from '../client/namespace.js';
import type { Message } from './message.js';
import { resolveProducerOptions, type ProducerOptions } from './options.js';
import { Producer } from './producer.js';
import type { ReceivedMessage } from './received-message.js';
import type { SendResult } from './send-result.js';
import { signalOf, type CallOptions } from '../remoting/abort.js';
import { registerCheckListener, type CheckRequest } from './transaction-checks.js';
import { checkNotInTransaction } from './group-priority.js';

export type LocalTransactionState = 'COMMIT' | 'ROLLBACK' | 'UNKNOWN';

/** A half message the broker asks about; `transactionId` is its UNIQ_KEY. */
export interface TransactionCheckMessage extends ReceivedMessage {
  readonly transactionId: string;
}

export type CheckListener = (
  message: TransactionCheckMessage,
) => LocalTransactionState | Promise<LocalTransactionState>;

export type LocalTransaction = (
  message: Message,
  sendResult: SendResult,
) => LocalTransactionState | Promise<LocalTransactionState>;

export interface TransactionProducerOptions extends ProducerOptions {
  /** Answers the broker's check-back for half messages whose state is still unknown. Required. */
  checkListener: CheckListener;
  /**
   * How long `executeLocal` may run (ms); past it the transaction is reported UNKNOWN and the
   * check-back decides. @default 6000 (the broker's transactionTimeOut: checks may start then)
   */
  localTransactionTimeout?: number;
}

export const TRANSACTION_PRODUCER_DEFAULTS = Object.freeze({ localTransactionTimeout: 6000 });

/** This class's own option names (beside the producer's and the shared ones). */
const TRANSACTION_OWN_OPTION_NAMES = keyList<
  Pick<TransactionProducerOptions, 'checkListener' | 'localTransactionTimeout'>
>({
  checkListener: true,
  localTransactionTimeout: true,
});

export interface TransactionSendResult extends SendResult {
  /** What END_TRANSACTION reported. */
  localTransactionState: LocalTransactionState;
  transactionId: string;
}

/** Java `END_TRANSACTION` timeout for answers to a check (3 s). */
const CHECK_END_TIMEOUT_MS = 3000;

const STATE_FLAG: Readonly<Record<LocalTransactionState, number>> = {
  COMMIT: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
  ROLLBACK: MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
  UNKNOWN: MessageSysFlag.TRANSACTION_NOT_TYPE,
};

function asState(value: unknown): LocalTransactionState | undefined {
  return value === 'COMMIT' || value === 'ROLLBACK' || value === 'UNKNOWN' ? value : undefined;
}

export class TransactionProducer extends Producer {
  readonly checkListener: CheckListener;
  readonly localTransactionTimeout: number;
  private unregisterChecks: (() => void) | undefined;

  constructor(options: TransactionProducerOptions) {
    // Key checks against this class's list (the producer's would refuse checkListener).
    resolveProducerOptions(options, { client: 'TransactionProducer', own: TRANSACTION_OWN_OPTION_NAMES });
    const { checkListener, localTransactionTimeout, ...rest } = options;
    super(rest);
    if (typeof checkListener !== 'function') {
      throw new InvalidArgumentError(
        'checkListener',
        'is required: a function (message) => COMMIT | ROLLBACK | UNKNOWN answering the broker’s check-back',
      );
    }
    this.checkListener = checkListener;
    this.localTransactionTimeout = checkInt(
      'localTransactionTimeout',
      localTransactionTimeout ?? TRANSACTION_PRODUCER_DEFAULTS.localTransactionTimeout,
      1,
    );
  }

  /** The check listener is part of the start (client/lifecycle.ts): registered once, before RUNNING. */
  protected override afterOpen(): void {
    this.unregisterChecks = registerCheckListener(
      this.client,
      this.wireGroup,
      (c) => this.answerCheck(c),
      this.options.namespace,
    );
  }

  protected override beforeClose(): void {
    this.unregisterChecks?.();
    this.unregisterChecks = undefined;
  }

  private get wireGroup(): string {
    return wrapNamespace(this.options.namespace, this.options.producerGroup);
  }

  /**
   * Sends `message` as a half message, runs `executeLocal` and ends the transaction with its
   * outcome. Rejects only when the half message could not be sent (then nothing is stored).
   * `options.signal` aborts the half message's send (AbortError, as `send`). Once the half
   * message is stored the signal no longer applies: the local transaction and END_TRANSACTION
   * run to their end, since a stored half message cannot be taken back and giving up there would
   * only hand the outcome to the broker's check-back.
   */
  async sendMessageInTransaction(
    message: Message,
    executeLocal: LocalTransaction,
    options?: CallOptions,
  ): Promise<TransactionSendResult> {
    if (typeof executeLocal !== 'function')
      throw new InvalidArgumentError('executeLocal', 'must be a function (message, sendResult) => state');
    checkObject('message', message);
    checkNotInTransaction(message);
    // Java clears DELAY: a half message is never delayed.
    const half: Message = { ...message, delayTimeLevel: undefined };
    const group = this.wireGroup;
    const result = await this.sendWith(
      half,
      (p) => ({
        ...p,
        sysFlag: p.sysFlag | MessageSysFlag.TRANSACTION_PREPARED_TYPE,
        properties: appendProperty(
          appendProperty(p.properties, PropertyKey.TRAN_MSG, 'true'),
          PropertyKey.PGROUP,
          group,
        ),
      }),
      { signal: signalOf(options) },
      true,
    );
    let state: LocalTransactionState = 'UNKNOWN';
    let remark: string | undefined;
    if (result.status === 'SEND_OK') {
      try {
        state = await this.runLocal(executeLocal, message, result);
      } catch (err) {
        remark = `executeLocalTransactionBranch exception: ${(err as Error)?.message ?? String(err)}`;
        this.options.logger.warn('local transaction failed; UNKNOWN, the broker will check back', {
          msgId: result.msgId,
          error: remark,
        });
      }
    } else {
      // Stored but not safely (flush/slave timeout): Java rolls back.
      state = 'ROLLBACK';
    }
    await this.endTransaction(result, state, remark);
    return { ...result, localTransactionState: state, transactionId: result.transactionId ?? result.msgId };
  }

  private async runLocal(
    fn: LocalTransaction,
    message: Message,
    result: SendResult,
  ): Promise<LocalTransactionState> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`local transaction took longer than ${this.localTransactionTimeout} ms`)),
        this.localTransactionTimeout,
      );
    });
    try {
      const value: unknown = await Promise.race([Promise.resolve().then(() => fn(message, result)), timeout]);
      const state = asState(value);
      if (state === undefined)
        throw new Error(`local transaction returned ${String(value)}, not COMMIT/ROLLBACK/UNKNOWN`);
      return state;
    } finally {
      clearTimeout(timer);
    }
  }

  /** END_TRANSACTION after a send (Java `endTransaction`): oneway to the master of the half message's broker. */
  private async endTransaction(
    result: SendResult,
    state: LocalTransactionState,
    remark: string | undefined,
  ): Promise<void> {
    const brokerName = result.messageQueue.brokerName;
    try {
      const address = this.client.routes.masterAddress(brokerName);
      if (address === undefined) throw new IllegalStateError(`no master address for broker ${brokerName}`);
      const header = EndTransaction.encode({
        producerGroup: this.wireGroup,
        tranStateTableOffset: result.queueOffset,
        commitLogOffset: decodeOffsetMsgId(result.offsetMsgId || result.msgId).offset,
        commitOrRollback: STATE_FLAG[state],
        fromTransactionCheck: false,
        msgId: result.msgId,
        transactionId: result.transactionId,
        bname: brokerName,
        topic: wrapNamespace(this.options.namespace, result.messageQueue.topic),
      });
      const cmd = createRequest(EndTransaction.code, header, undefined, this.client.commandDefaults);
      if (remark !== undefined) cmd.remark = remark;
      await this.client.pool.oneway(address, cmd, this.options.sendMsgTimeout);
    } catch (err) {
      // Java only logs: the half message stays, and the check-back settles it.
      this.options.logger.warn('END_TRANSACTION failed; the broker will check back', {
        msgId: result.msgId,
        state,
        error: (err as Error).message,
      });
    }
  }

  /** CHECK_TRANSACTION_STATE: ask the listener, answer with END_TRANSACTION to the broker that asked. */
  private async answerCheck(c: CheckRequest): Promise<void> {
    let state: LocalTransactionState = 'UNKNOWN';
    let remark: string | undefined;
    try {
      const value: unknown = await this.checkListener(c.message);
      state = asState(value) ?? 'UNKNOWN';
      if (asState(value) === undefined) remark = `checkLocalTransactionState returned ${String(value)}`;
    } catch (err) {
      remark = `checkLocalTransactionState Exception: ${(err as Error)?.message ?? String(err)}`;
    }
    const header = EndTransaction.encode({
      producerGroup: this.wireGroup,
      tranStateTableOffset: c.header.tranStateTableOffset,
      commitLogOffset: c.header.commitLogOffset,
      commitOrRollback: STATE_FLAG[state],
      fromTransactionCheck: true,
      msgId: c.header.msgId ?? c.message.msgId,
      transactionId: c.header.transactionId,
      bname: c.header.bname,
      topic: c.wireTopic,
    });
    const cmd = createRequest(EndTransaction.code, header, undefined, this.client.commandDefaults);
    if (remark !== undefined) cmd.remark = remark;
    try {
      await this.client.pool.oneway(c.brokerAddress, cmd, CHECK_END_TIMEOUT_MS);
    } catch (err) {
      this.options.logger.warn('END_TRANSACTION for a check failed', { error: (err as Error).message });
    }
  }
}
