/**
 * The one translation of a failed broker or NameServer response into a typed error, used by
 * every caller (producer sends, pulls, offset and lock queries, POP, replies, Admin, NameServer
 * requests), so the same answer is the same class wherever it arrives:
 * - an ACL refusal → AccessDeniedError naming resource and permission. A 4.9 broker answers
 *   SYSTEM_ERROR with `org.apache.rocketmq.acl.common.AclException: <reason>, <stack frame>`; a
 *   5.x broker (and ours) NO_PERMISSION with the reason alone. NO_PERMISSION also means "topic
 *   not writable" (no ACL), so the remark decides, never the code alone;
 * - TOPIC_NOT_EXIST → TopicNotFoundError (with the response code, so a producer's retry list
 *   still decides whether another broker is tried);
 * - MESSAGE_ILLEGAL with the Proxy's message-type remark → MessageTypeMismatchError (never retried);
 * - REQUEST_CODE_NOT_SUPPORTED, when the caller names its request → RequestNotSupportedError;
 * - every other code → BrokerResponseError with the code and remark.
 */
import {
  AccessDeniedError,
  BrokerResponseError,
  MessageTypeMismatchError,
  RequestNotSupportedError,
  TopicNotFoundError,
  type RocketMQError,
} from '../errors.js';
import { requestCodeName, ResponseCode, responseCodeName } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import { parseMessageTypeMismatch } from '../protocol/message/message-type.js';

const ACL_EXCEPTION = 'AclException';
/** Reasons of PlainPermissionManager (4.9, ours) and of the 5.x authentication/authorization handlers. */
const ACL_REASON =
  /No accessKey is configured|No acl config for|Check signature failed|No default permission for|Need admin permission|No permission for|username cannot be null|User:\S* is (?:not found|disabled)|check signature failed|has no permission|is not allowed/i;

/** `topic:T` / `group:G` (4.9 `PlainAccessResource.printStr`), or 5.x `Topic:T` / `Group:G`. */
const RESOURCE = /\b(topic|group)[:=]\s*([^\s,]+)/i;
const ADMIN_CODE = /Need admin permission for request code=(-?\d+)/;
/** The topic in a TOPIC_NOT_EXIST remark: the broker's `topic[T] not exist`, the NameServer's `for the topic: T`. */
const REMARK_TOPIC = /topic\[([^\]]+)\]|for the topic: ?([^\s,]+)/;

/** The permission a request of this kind needs, for the error text (the remark does not say). */
export type NeededPermission = 'PUB' | 'SUB' | 'ADMIN';

/** What the caller knows about the request a failed response answers. */
export interface ResponseContext {
  /** Where the response came from. */
  address?: string | undefined;
  /** The permission the request needed (named in an AccessDeniedError). */
  permission?: NeededPermission | undefined;
  /** The topic of the request, as the application wrote it (named in a TopicNotFoundError). */
  topic?: string | undefined;
  /** The request code; with it REQUEST_CODE_NOT_SUPPORTED becomes RequestNotSupportedError. */
  requestCode?: number | undefined;
  /** Whether trying again may help (a producer's retry list decides). @default false */
  retriable?: boolean | undefined;
  cause?: unknown;
}

/** AccessDeniedError when `response` is an ACL refusal, else undefined. */
export function accessDenied(
  response: RemotingCommand,
  address: string | undefined,
  permission?: NeededPermission,
): AccessDeniedError | undefined {
  const { code } = response;
  if (code !== ResponseCode.NO_PERMISSION && code !== ResponseCode.SYSTEM_ERROR) return undefined;
  const remark = response.remark ?? '';
  const isAcl = remark.includes(ACL_EXCEPTION) || ACL_REASON.test(remark);
  if (!isAcl) return undefined;
  // 4.9 appends ", <first stack frame>"; keep only the reason.
  const reason = remark
    .replace(/^.*AclException:\s*/, '')
    .replace(/, [\w.$]+\([^)]*\)$/, '')
    .trim();
  const admin = ADMIN_CODE.exec(reason);
  if (admin)
    return new AccessDeniedError(code, reason, {
      resource: `code=${admin[1]}`,
      permission: 'ADMIN',
      address,
    });
  const res = RESOURCE.exec(reason);
  const resource = res ? `${(res[1] as string).toLowerCase()}:${res[2] as string}` : undefined;
  return new AccessDeniedError(code, reason, {
    resource,
    permission: resource?.startsWith('group:') ? 'SUB' : resource !== undefined ? permission : undefined,
    address,
  });
}

/** The typed error for a failed (non-success) response; see the file comment for the mapping. */
export function errorFromResponse(response: RemotingCommand, context: ResponseContext = {}): RocketMQError {
  const { address, permission, topic, requestCode, retriable = false, cause } = context;
  const denied = accessDenied(response, address, permission);
  if (denied !== undefined) return denied;
  const { code, remark } = response;
  if (code === ResponseCode.TOPIC_NOT_EXIST) {
    const named = REMARK_TOPIC.exec(remark ?? '');
    return new TopicNotFoundError(topic ?? named?.[1] ?? named?.[2] ?? '(unnamed)', undefined, {
      retriable,
      cause,
      response: { responseCode: code, remark, address },
    });
  }
  if (code === ResponseCode.MESSAGE_ILLEGAL) {
    const mismatch = parseMessageTypeMismatch(remark);
    if (mismatch !== undefined)
      return new MessageTypeMismatchError(
        topic ?? '(unnamed)',
        mismatch.expected,
        mismatch.actual,
        { responseCode: code, remark, address },
        { cause },
      );
  }
  if (code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED && requestCode !== undefined)
    return new RequestNotSupportedError(address ?? '(unknown)', requestCode, requestCodeName(requestCode));
  return new BrokerResponseError(code, responseCodeName(code), remark, address, { retriable, cause });
}
