export { MessageStore, DEFAULT_GET_MAX_BYTES, type MessageStoreEvents } from './message-store.js';
export { ConsumerOffsetStore } from './offset-store.js';
export {
  DEFAULT_STORE_OPTIONS,
  resolveStoreOptions,
  type StoreOptions,
  type StoreTestHooks,
} from './options.js';
export { tagsHashCode } from './consume-queue.js';
export type {
  GetMessageStatus,
  GetMessagesResult,
  MessageToStore,
  PullSelection,
  PutResult,
  PutStatus,
} from './types.js';
export type { CleanResult, RetentionPin } from './retention.js';
export type { RecoveryInfo } from './restart.js';
