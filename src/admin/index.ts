/** The Admin client's public surface. */
export { Admin, type AdminEvents } from './admin.js';
export type { AdminOptions, ResolvedAdminOptions } from './options.js';
export { DEFAULT_ADMIN_OPTIONS } from './options.js';
export type * from './types.js';
export type { SubscriptionGroupSettings } from './subscription-groups.js';
export type { MessageRequestMode } from './request-mode.js';
export type {
  PubTrace,
  SubAfterTrace,
  SubBeforeTrace,
  SubTraceBean,
  TraceContext,
} from '../protocol/trace/trace-data.js';
export { TOPIC_MESSAGE_TYPES } from '../protocol/message/message-type.js';
export type {
  AclInfo,
  AclRequest,
  CreateUserRequest,
  ListAclFilter,
  PolicyEntryInfo,
  PolicyInfo,
  UpdateUserRequest,
  UserInfo,
} from './acl2.js';
export { ACL_ACTIONS, ACL_DECISIONS, USER_STATUSES, USER_TYPES } from './acl2.js';
export type {
  BrowseByTimeRequest,
  BrowsePage,
  BrowseQueueCursor,
  DeadLetterMessage,
  DeadLetterPage,
  DeadLetterQueueCursor,
} from './browse.js';
