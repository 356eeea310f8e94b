/** What request processors may use of the broker: one interface, so each processor file stands alone. */
import type { Logger } from '../../observability/logger.js';
import type { RemotingCommand } from '../../protocol/command.js';
import type { SocketAddress } from '../../protocol/message/stored-message.js';
import type { MessageStore } from '../store/message-store.js';
import type { MessageToStore } from '../store/types.js';
import type { ClientManager } from './client-manager.js';
import type { BrokerStats } from './broker-stats.js';
import type { BrokerOptions } from './options.js';
import type { PullHoldService } from './pull-hold.js';
import type { SubscriptionGroupManager } from './subscription-group-manager.js';
import type { TopicConfigManager } from './topic-config-manager.js';
import type { TimerPutResult } from './timer-service.js';

/** Resolved half messages, by commit-log offset (END_TRANSACTION and the check service share it). */
export interface TransactionLedger {
  isResolved(halfOffset: number): boolean;
  resolve(halfOffset: number): void;
}

export interface BrokerContext {
  readonly options: BrokerOptions;
  readonly logger: Logger;
  readonly store: MessageStore;
  readonly topics: TopicConfigManager;
  readonly subscriptionGroups: SubscriptionGroupManager;
  readonly clients: ClientManager;
  readonly pullHold: PullHoldService;
  /** brokerIP1 + listen port: written as store host, encoded in offsetMsgIds. */
  readonly storeHost: SocketAddress;
  /** Delay of each level in ms; index = level − 1. */
  readonly delayLevels: readonly number[];
  readonly transactions: TransactionLedger;
  readonly stats: BrokerStats;
  /** True once stop() began: held pulls are dropped instead of answered. */
  readonly stopping: boolean;
  /**
   * Puts one message, turning DELAY > 0 into a SCHEDULE_TOPIC_XXXX message (Java CommitLog) and
   * a future timer into a `rmq_sys_wheel_timer` message (timer-service.ts; `timerOutMs` set then).
   */
  putMessage(msg: MessageToStore): Promise<TimerPutResult>;
  /**
   * Whether the account the ACL hook checked `request` as holds `perm` on `resource` (a topic
   * or `%RETRY%group`): for checks on what a processor looked up. True when ACL is off.
   */
  aclAllows(request: RemotingCommand, resource: string, perm: number): boolean;
  /** Whether the ACL hook checked `request` as an admin account; true when ACL is off. */
  aclIsAdmin(request: RemotingCommand): boolean;
  /** Registers with every NameServer now. */
  registerBrokerAll(): Promise<void>;
}
