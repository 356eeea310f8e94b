/**
 * Request and response codes of the RocketMQ remoting protocol (protocol.md §2), as data.
 * Names follow Java's `RequestCode` / `ResponseCode` constants.
 */

export const RequestCode = {
  SEND_MESSAGE: 10,
  PULL_MESSAGE: 11,
  QUERY_MESSAGE: 12,
  QUERY_BROKER_OFFSET: 13,
  QUERY_CONSUMER_OFFSET: 14,
  UPDATE_CONSUMER_OFFSET: 15,
  UPDATE_AND_CREATE_TOPIC: 17,
  GET_ALL_TOPIC_CONFIG: 21,
  SEARCH_OFFSET_BY_TIMESTAMP: 29,
  GET_MAX_OFFSET: 30,
  GET_MIN_OFFSET: 31,
  GET_EARLIEST_MSG_STORETIME: 32,
  VIEW_MESSAGE_BY_ID: 33,
  HEART_BEAT: 34,
  UNREGISTER_CLIENT: 35,
  CONSUMER_SEND_MSG_BACK: 36,
  END_TRANSACTION: 37,
  GET_CONSUMER_LIST_BY_GROUP: 38,
  CHECK_TRANSACTION_STATE: 39,
  NOTIFY_CONSUMER_IDS_CHANGED: 40,
  LOCK_BATCH_MQ: 41,
  UNLOCK_BATCH_MQ: 42,
  GET_ALL_CONSUMER_OFFSET: 43,
  GET_ALL_DELAY_OFFSET: 45,
  PUT_KV_CONFIG: 100,
  GET_KV_CONFIG: 101,
  DELETE_KV_CONFIG: 102,
  REGISTER_BROKER: 103,
  UNREGISTER_BROKER: 104,
  GET_ROUTEINFO_BY_TOPIC: 105,
  GET_BROKER_CLUSTER_INFO: 106,
  GET_ALL_TOPIC_LIST_FROM_NAMESERVER: 206,
  GET_CONSUMER_RUNNING_INFO: 307,
  CONSUME_MESSAGE_DIRECTLY: 309,
  SEND_MESSAGE_V2: 310,
  SEND_BATCH_MESSAGE: 320,
  QUERY_DATA_VERSION: 322,
  SEND_REPLY_MESSAGE: 324,
  SEND_REPLY_MESSAGE_V2: 325,
  PUSH_REPLY_MESSAGE_TO_CLIENT: 326,
} as const;
export type RequestCodeName = keyof typeof RequestCode;

export const ResponseCode = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  TRANSACTION_FAILED: 4,
  FLUSH_DISK_TIMEOUT: 10,
  SLAVE_NOT_AVAILABLE: 11,
  FLUSH_SLAVE_TIMEOUT: 12,
  MESSAGE_ILLEGAL: 13,
  SERVICE_NOT_AVAILABLE: 14,
  VERSION_NOT_SUPPORTED: 15,
  NO_PERMISSION: 16,
  TOPIC_NOT_EXIST: 17,
  TOPIC_EXIST_ALREADY: 18,
  PULL_NOT_FOUND: 19,
  PULL_RETRY_IMMEDIATELY: 20,
  PULL_OFFSET_MOVED: 21,
  QUERY_NOT_FOUND: 22,
  SUBSCRIPTION_PARSE_FAILED: 23,
  SUBSCRIPTION_NOT_EXIST: 24,
  SUBSCRIPTION_NOT_LATEST: 25,
  SUBSCRIPTION_GROUP_NOT_EXIST: 26,
  FILTER_DATA_NOT_EXIST: 27,
  FILTER_DATA_NOT_LATEST: 28,
  INVALID_PARAMETER: 29,
  TRANSACTION_SHOULD_COMMIT: 200,
  TRANSACTION_SHOULD_ROLLBACK: 201,
  TRANSACTION_STATE_UNKNOW: 202,
  TRANSACTION_STATE_GROUP_WRONG: 203,
  NO_BUYER_ID: 204,
  NOT_IN_CURRENT_UNIT: 205,
  CONSUMER_NOT_ONLINE: 206,
  CONSUME_MSG_TIMEOUT: 207,
  NO_MESSAGE: 208,
  POLLING_FULL: 209,
  POLLING_TIMEOUT: 210,
  BROKER_NOT_EXIST: 211,
  BROKER_DISPATCH_NOT_COMPLETE: 212,
  BROADCAST_CONSUMPTION: 213,
  FLOW_CONTROL: 215,
  NOT_LEADER_FOR_QUEUE: 501,
  ILLEGAL_OPERATION: 604,
  GO_AWAY: 1500,
} as const;
export type ResponseCodeName = keyof typeof ResponseCode;

function invert(table: Record<string, number>): ReadonlyMap<number, string> {
  return new Map(Object.entries(table).map(([name, code]) => [code, name]));
}

const requestNames = invert(RequestCode);
const responseNames = invert(ResponseCode);

/** `SEND_MESSAGE_V2` for 310; `UNKNOWN_<n>` for codes we do not know. */
export function requestCodeName(code: number): string {
  return requestNames.get(code) ?? `UNKNOWN_${code}`;
}

/** `SYSTEM_BUSY` for 2; `UNKNOWN_<n>` for codes we do not know. */
export function responseCodeName(code: number): string {
  return responseNames.get(code) ?? `UNKNOWN_${code}`;
}

/** LanguageCode (protocol.md §1.6): the name goes in JSON headers, the number in binary headers. */
export const LanguageCode = {
  JAVA: 0,
  CPP: 1,
  DOTNET: 2,
  PYTHON: 3,
  DELPHI: 4,
  ERLANG: 5,
  RUBY: 6,
  OTHER: 7,
  HTTP: 8,
  GO: 9,
  PHP: 10,
  OMS: 11,
  RUST: 12,
  NODE_JS: 13,
} as const;
export type LanguageName = keyof typeof LanguageCode;

const languageNames = invert(LanguageCode);
export function languageName(code: number): string | undefined {
  return languageNames.get(code);
}

/** MQVersion ordinals we send or gate on (protocol.md §1.7). */
export const MQVersion = {
  V3_0_11: 37,
  V4_9_4: 401,
  V4_9_7: 407,
  V4_9_8: 409,
  V5_0_0: 413,
} as const;

/** Default `version` field of every command we create: looks like a 4.9.7 Java client. */
export const DEFAULT_REMOTING_VERSION = MQVersion.V4_9_7;
