/**
 * Recognizes an ACL refusal in a broker or NameServer response (docs/security.md §2.5,
 * §4.10) and turns it into AccessDeniedError; every other failure stays a BrokerResponseError.
 * A 4.9 broker answers SYSTEM_ERROR with `org.apache.rocketmq.acl.common.AclException: <reason>,
 * <stack frame>`; a 5.x broker (and ours) NO_PERMISSION with the reason alone. NO_PERMISSION also
 * means "topic not writable" (no ACL), so the remark decides, never the code alone.
 */
import { AccessDeniedError, BrokerResponseError, type RocketMQErrorOptions } from '../errors.js';
import { ResponseCode, responseCodeName } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';

const ACL_EXCEPTION = 'AclException';
/** Reasons of PlainPermissionManager (4.9, ours) and of the 5.x authentication/authorization handlers. */
const ACL_REASON =
  /No accessKey is configured|No acl config for|Check signature failed|No default permission for|Need admin permission|No permission for|username cannot be null|User:\S* is (?:not found|disabled)|check signature failed|has no permission|is not allowed/i;

/** `topic:T` / `group:G` (4.9 `PlainAccessResource.printStr`), or 5.x `Topic:T` / `Group:G`. */
const RESOURCE = /\b(topic|group)[:=]\s*([^\s,]+)/i;
const ADMIN_CODE = /Need admin permission for request code=(-?\d+)/;

/** The permission a request of this kind needs, for the error text (the remark does not say). */
export type NeededPermission = 'PUB' | 'SUB' | 'ADMIN';

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

/** The error for a failed response: AccessDeniedError for an ACL refusal, else BrokerResponseError. */
export function responseError(
  response: RemotingCommand,
  address: string | undefined,
  options: RocketMQErrorOptions & { permission?: NeededPermission } = {},
): AccessDeniedError | BrokerResponseError {
  const { permission, ...errorOptions } = options;
  return (
    accessDenied(response, address, permission) ??
    new BrokerResponseError(
      response.code,
      responseCodeName(response.code),
      response.remark,
      address,
      errorOptions,
    )
  );
}
