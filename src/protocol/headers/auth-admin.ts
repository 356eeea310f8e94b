/**
 * [5.3+] ACL 2.0 administration (docs/security.md §6): users (3001–3005) and ACL entries
 * (3006–3010), as Java's `CreateUserRequestHeader` … `ListAclsRequestHeader`. Writes carry the
 * user or ACL as the body (protocol/body/auth.ts); reads answer with it (an empty body when
 * there is none). A broker without ACL 2.0 (4.9, or the embedded one) answers
 * REQUEST_CODE_NOT_SUPPORTED.
 */
import { RequestCode } from '../codes.js';
import { F, declareRequest } from './fields.js';

/** AUTH_CREATE_USER (3001): body `UserInfo`; a blank username → INVALID_PARAMETER. */
export const AuthCreateUser = declareRequest(RequestCode.AUTH_CREATE_USER, 'AUTH_CREATE_USER', {
  username: F.string.required(),
});

/** AUTH_UPDATE_USER (3002): body `UserInfo`; an unknown user → NO_PERMISSION "The user is not exist". */
export const AuthUpdateUser = declareRequest(RequestCode.AUTH_UPDATE_USER, 'AUTH_UPDATE_USER', {
  username: F.string.required(),
});

/** AUTH_DELETE_USER (3003): no body; deleting an unknown user succeeds. */
export const AuthDeleteUser = declareRequest(RequestCode.AUTH_DELETE_USER, 'AUTH_DELETE_USER', {
  username: F.string.required(),
});

/** AUTH_GET_USER (3004): response body `UserInfo`, empty when the user does not exist. */
export const AuthGetUser = declareRequest(RequestCode.AUTH_GET_USER, 'AUTH_GET_USER', {
  username: F.string.required(),
});

/** AUTH_LIST_USER (3005): response body `List<UserInfo>`, empty when none; `filter` = name substring. */
export const AuthListUser = declareRequest(RequestCode.AUTH_LIST_USER, 'AUTH_LIST_USER', {
  filter: F.string.optional(),
});

/** AUTH_CREATE_ACL (3006): body `AclInfo`; `subject` e.g. `User:alice`. */
export const AuthCreateAcl = declareRequest(RequestCode.AUTH_CREATE_ACL, 'AUTH_CREATE_ACL', {
  subject: F.string.required(),
});

/** AUTH_UPDATE_ACL (3007): body `AclInfo` (its entries replace those on the same resources). */
export const AuthUpdateAcl = declareRequest(RequestCode.AUTH_UPDATE_ACL, 'AUTH_UPDATE_ACL', {
  subject: F.string.required(),
});

/**
 * AUTH_DELETE_ACL (3008): without `resource` every entry of the subject goes; `policyType`
 * `Custom` (Java's default when absent) or `Default`.
 */
export const AuthDeleteAcl = declareRequest(RequestCode.AUTH_DELETE_ACL, 'AUTH_DELETE_ACL', {
  subject: F.string.required(),
  policyType: F.string.optional(),
  resource: F.string.optional(),
});

/** AUTH_GET_ACL (3009): response body `AclInfo`, empty when the subject has none. */
export const AuthGetAcl = declareRequest(RequestCode.AUTH_GET_ACL, 'AUTH_GET_ACL', {
  subject: F.string.required(),
});

/** AUTH_LIST_ACL (3010): response body `List<AclInfo>`; both filters are substrings. */
export const AuthListAcl = declareRequest(RequestCode.AUTH_LIST_ACL, 'AUTH_LIST_ACL', {
  subjectFilter: F.string.optional(),
  resourceFilter: F.string.optional(),
});

/** Every ACL 2.0 admin request, for servers that answer them all alike. */
export const AUTH_ADMIN_REQUESTS = [
  AuthCreateUser,
  AuthUpdateUser,
  AuthDeleteUser,
  AuthGetUser,
  AuthListUser,
  AuthCreateAcl,
  AuthUpdateAcl,
  AuthDeleteAcl,
  AuthGetAcl,
  AuthListAcl,
] as const;
