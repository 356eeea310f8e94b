/** Every request declaration by code: for tools that decode arbitrary frames (debug dumps, CLI). */
import {
  DeleteTopicInBroker,
  GetAllTopicConfig,
  GetBrokerRuntimeInfo,
  UpdateAndCreateTopic,
} from './admin.js';
import {
  CheckClientConfig,
  ConsumeMessageDirectly,
  ConsumerSendMsgBack,
  GetConsumerListByGroup,
  GetConsumerRunningInfo,
  GetConsumerStatusFromClient,
  LockBatchMQ,
  NotifyConsumerIdsChanged,
  QueryAssignment,
  SetMessageRequestMode,
  ResetConsumerClientOffset,
  UnlockBatchMQ,
} from './consumer.js';
import {
  DeleteSubscriptionGroup,
  GetAllSubscriptionGroupConfig,
  GetBrokerConfig,
  GetProducerConnectionList,
  GetTopicConfig,
  GetTopicStatsInfo,
  InvokeBrokerToResetOffset,
  QueryTopicConsumeByWho,
  UpdateAndCreateSubscriptionGroup,
  UpdateBrokerConfig,
  ViewBrokerStatsData,
} from './broker-admin.js';
import { AUTH_ADMIN_REQUESTS } from './auth-admin.js';
import { GetConsumeStats, GetConsumerConnectionList } from './consumer-admin.js';
import { DeleteTopicInNamesrv, GetTopicsByCluster } from './namesrv-admin.js';
import type { HeaderSpec, RequestDeclaration } from './fields.js';
import { HeartBeat, UnregisterClient } from './heartbeat.js';
import {
  GetEarliestMsgStoretime,
  GetMaxOffset,
  GetMinOffset,
  QueryConsumerOffset,
  SearchOffsetByTimestamp,
  UpdateConsumerOffset,
} from './offset.js';
import { AckMessage, BatchAckMessage, ChangeInvisibleTime, Notification, PopMessage } from './pop.js';
import { PullMessage } from './pull.js';
import { QueryMessage, ViewMessageById } from './query.js';
import {
  DeleteKVConfig,
  GetBrokerClusterInfo,
  GetKVConfig,
  GetKVListByNamespace,
  PutKVConfig,
  QueryDataVersion,
  RegisterBroker,
  UnregisterBroker,
} from './register.js';
import { GetAllTopicListFromNameserver, GetRouteInfoByTopic } from './route.js';
import { RecallMessage } from './recall.js';
import { PushReplyMessageToClient } from './reply.js';
import {
  SendBatchMessage,
  SendMessage,
  SendMessageV2,
  SendReplyMessage,
  SendReplyMessageV2,
} from './send.js';
import { CheckTransactionState, EndTransaction } from './transaction.js';

const ALL: ReadonlyArray<RequestDeclaration<HeaderSpec>> = [
  SendMessage,
  SendMessageV2,
  SendBatchMessage,
  SendReplyMessage,
  SendReplyMessageV2,
  PushReplyMessageToClient,
  PullMessage,
  QueryMessage,
  ViewMessageById,
  QueryConsumerOffset,
  UpdateConsumerOffset,
  GetMaxOffset,
  GetMinOffset,
  SearchOffsetByTimestamp,
  UpdateAndCreateTopic,
  HeartBeat,
  UnregisterClient,
  ConsumerSendMsgBack,
  GetConsumerListByGroup,
  NotifyConsumerIdsChanged,
  GetConsumerRunningInfo,
  ConsumeMessageDirectly,
  ResetConsumerClientOffset,
  GetConsumerStatusFromClient,
  EndTransaction,
  CheckTransactionState,
  RegisterBroker,
  UnregisterBroker,
  QueryDataVersion,
  GetRouteInfoByTopic,
  GetBrokerClusterInfo,
  GetAllTopicListFromNameserver,
  PutKVConfig,
  GetKVConfig,
  DeleteKVConfig,
  GetKVListByNamespace,
  DeleteTopicInBroker,
  GetAllTopicConfig,
  GetBrokerRuntimeInfo,
  GetEarliestMsgStoretime,
  CheckClientConfig,
  LockBatchMQ,
  UnlockBatchMQ,
  QueryAssignment,
  SetMessageRequestMode,
  GetConsumerConnectionList,
  GetConsumeStats,
  UpdateBrokerConfig,
  ViewBrokerStatsData,
  GetBrokerConfig,
  GetTopicStatsInfo,
  GetTopicConfig,
  QueryTopicConsumeByWho,
  InvokeBrokerToResetOffset,
  GetProducerConnectionList,
  UpdateAndCreateSubscriptionGroup,
  GetAllSubscriptionGroupConfig,
  DeleteSubscriptionGroup,
  DeleteTopicInNamesrv,
  GetTopicsByCluster,

  PopMessage,
  AckMessage,
  BatchAckMessage,
  ChangeInvisibleTime,
  Notification,
  RecallMessage,
  ...AUTH_ADMIN_REQUESTS,
] as unknown as ReadonlyArray<RequestDeclaration<HeaderSpec>>;

const BY_CODE: ReadonlyMap<number, RequestDeclaration<HeaderSpec>> = new Map(ALL.map((d) => [d.code, d]));

/** The declaration of a request code, or undefined for codes without one. */
export function requestDeclaration(code: number): RequestDeclaration<HeaderSpec> | undefined {
  return BY_CODE.get(code);
}
