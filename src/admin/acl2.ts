/**
 * [5.3+] ACL 2.0 administration: users (AUTH_CREATE_USER 3001 … AUTH_LIST_USER 3005) and ACL
 * entries (AUTH_CREATE_ACL 3006 … AUTH_LIST_ACL 3010), sent where mqadmin sends them
 * (tools `command/auth/*SubCommand`): a change goes to every broker of the target, masters and
 * slaves (each keeps its own auth metadata); a read asks the masters in turn and returns the first
 * answer that has something. A broker without ACL 2.0 (4.9, the embedded broker) answers
 * REQUEST_CODE_NOT_SUPPORTED → AuthAdminNotSupportedError. docs/security.md §6.
 */
import {
  AuthAdminNotSupportedError,
  BrokerNotFoundError,
  InvalidArgumentError,
  RequestNotSupportedError,
} from '../errors.js';
import { ResponseCode } from '../protocol/codes.js';
import type { RemotingCommand } from '../protocol/command.js';
import {
  encodeAclInfo,
  encodeUserInfo,
  parseAclInfo,
  parseAclInfoList,
  parseUserInfo,
  parseUserInfoList,
  type AclInfo,
  type PolicyEntryInfo,
  type UserInfo,
} from '../protocol/body/auth.js';
import {
  AuthCreateAcl,
  AuthCreateUser,
  AuthDeleteAcl,
  AuthDeleteUser,
  AuthGetAcl,
  AuthGetUser,
  AuthListAcl,
  AuthListUser,
  AuthUpdateAcl,
  AuthUpdateUser,
} from '../protocol/headers/auth-admin.js';
import type { HeaderOf, HeaderSpec, RequestDeclaration } from '../protocol/headers/fields.js';
import { masterAddress } from '../protocol/headers/route.js';
import type { AdminContext } from './admin-context.js';
import type { AdminTarget } from './types.js';

export type { AclInfo, PolicyEntryInfo, PolicyInfo, UserInfo } from '../protocol/body/auth.js';

/** Java's enum names (`UserType`, `UserStatus`, `Action`, `Decision`, `PolicyType`, `ResourceType`). */
export const USER_TYPES = ['Super', 'Normal'] as const;
export const USER_STATUSES = ['enable', 'disable'] as const;
export const ACL_ACTIONS = ['All', 'Any', 'Pub', 'Sub', 'Create', 'Update', 'Delete', 'Get', 'List'] as const;
export const ACL_DECISIONS = ['Allow', 'Deny'] as const;
const RESOURCE_TYPES = ['Any', 'Cluster', 'Namespace', 'Topic', 'Group'] as const;

/** A user to create: the broker makes it `Normal` when `userType` is absent. */
export interface CreateUserRequest {
  username: string;
  password: string;
  /** `Super` or `Normal` (any case). */
  userType?: string | undefined;
}

/** A user's fields to change; the absent ones keep their value. */
export interface UpdateUserRequest {
  username: string;
  password?: string | undefined;
  /** `Super` or `Normal` (any case). */
  userType?: string | undefined;
  /** `enable` or `disable` (any case). */
  userStatus?: string | undefined;
}

/** mqadmin createAcl's flags as one request: `AclInfo.of` (one policy, an entry per resource). */
export interface AclRequest {
  /** `User:<username>`. */
  subject: string;
  /** `Topic:<name>`, `Group:<name>`, `Cluster:<name>`, `Namespace:<name>`, or `*`; a name ending in `*` is a prefix. */
  resources: readonly string[];
  actions: readonly string[];
  /** Client addresses or CIDR ranges; none = any address. */
  sourceIps?: readonly string[] | undefined;
  /** `Allow` or `Deny`. */
  decision: string;
}

export interface ListAclFilter {
  /** Substring of the subject. */
  subject?: string | undefined;
  /** Substring of the resource. */
  resource?: string | undefined;
}

function nonBlank(field: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new InvalidArgumentError(field, `must be a non-empty string, got ${JSON.stringify(value)}`);
  if (/\s/.test(value)) throw new InvalidArgumentError(field, `must not contain whitespace, got "${value}"`);
  return value;
}

/** One of Java's enum names, matched case-insensitively as Java's `getByName`, sent canonical. */
function oneOf<T extends string>(field: string, value: unknown, names: readonly T[]): T {
  const found =
    typeof value === 'string' ? names.find((n) => n.toLowerCase() === value.toLowerCase()) : undefined;
  if (found === undefined)
    throw new InvalidArgumentError(field, `must be one of ${names.join(', ')}, got ${JSON.stringify(value)}`);
  return found;
}

function optionalOneOf<T extends string>(field: string, value: unknown, names: readonly T[]): T | undefined {
  return value === undefined ? undefined : oneOf(field, value, names);
}

export function checkSubject(subject: unknown, field = 'subject'): string {
  const s = nonBlank(field, subject);
  if (!/^User:.+$/i.test(s)) throw new InvalidArgumentError(field, `must be "User:<username>", got "${s}"`);
  return `User:${s.slice(5)}`;
}

function checkResource(resource: unknown, field: string): string {
  const r = nonBlank(field, resource);
  if (r === '*') return r;
  const colon = r.indexOf(':');
  const type =
    colon > 0 ? RESOURCE_TYPES.find((t) => t.toLowerCase() === r.slice(0, colon).toLowerCase()) : undefined;
  if (type === undefined || colon === r.length - 1)
    throw new InvalidArgumentError(
      field,
      `must be "*" or "<${RESOURCE_TYPES.join('|')}>:<name>" (a name ending in * is a prefix), got "${r}"`,
    );
  return `${type}:${r.slice(colon + 1)}`;
}

function list(field: string, value: unknown, optional = false): readonly unknown[] {
  if (value === undefined && optional) return [];
  if (!Array.isArray(value) || (value.length === 0 && !optional))
    throw new InvalidArgumentError(field, 'must be a non-empty array');
  return value as unknown[];
}

function checkAclRequest(acl: AclRequest): AclInfo {
  if (acl === null || typeof acl !== 'object') throw new InvalidArgumentError('acl', 'must be an object');
  const known = new Set(['subject', 'resources', 'actions', 'sourceIps', 'decision']);
  for (const k of Object.keys(acl))
    if (!known.has(k)) throw new InvalidArgumentError(k, 'is not an ACL field');
  const subject = checkSubject(acl.subject);
  const actions = list('actions', acl.actions).map((a, i) => oneOf(`actions[${i}]`, a, ACL_ACTIONS));
  const sourceIps = list('sourceIps', acl.sourceIps, true).map((ip, i) => nonBlank(`sourceIps[${i}]`, ip));
  const decision = oneOf('decision', acl.decision, ACL_DECISIONS);
  const entries: PolicyEntryInfo[] = list('resources', acl.resources).map((r, i) => ({
    resource: checkResource(r, `resources[${i}]`),
    actions,
    ...(sourceIps.length > 0 ? { sourceIps } : {}),
    decision,
  }));
  return { subject, policies: [{ policyType: 'Custom', entries }] };
}

function checkUser(user: CreateUserRequest | UpdateUserRequest, create: boolean): UserInfo {
  if (user === null || typeof user !== 'object') throw new InvalidArgumentError('user', 'must be an object');
  const known = new Set(['username', 'password', 'userType', ...(create ? [] : ['userStatus'])]);
  for (const k of Object.keys(user))
    if (!known.has(k)) throw new InvalidArgumentError(k, 'is not a user field');
  const out: UserInfo = { username: nonBlank('username', user.username) };
  if (create || user.password !== undefined) out.password = nonBlank('password', user.password);
  const userType = optionalOneOf('userType', user.userType, USER_TYPES);
  if (userType !== undefined) out.userType = userType;
  const status = optionalOneOf('userStatus', (user as UpdateUserRequest).userStatus, USER_STATUSES);
  if (status !== undefined) out.userStatus = status;
  if (!create && Object.keys(out).length === 1)
    throw new InvalidArgumentError('user', 'give at least one of password, userType, userStatus to change');
  return out;
}

/** Every broker a change goes to: `target.brokers` as given, else masters and slaves of the cluster (or all). */
async function writeAddresses(ctx: AdminContext, target: AdminTarget): Promise<string[]> {
  if (target.brokers && target.brokers.length > 0) {
    const out: string[] = [];
    for (const b of target.brokers) out.push((await ctx.brokerAddress(b)).address);
    return [...new Set(out)];
  }
  const info = await ctx.clusterInfo();
  const names =
    target.cluster === undefined ? Object.keys(info.brokerAddrTable) : info.clusterAddrTable[target.cluster];
  if (names === undefined) throw new BrokerNotFoundError(target.cluster!);
  const out = [...names].sort().flatMap((n) => {
    const bd = info.brokerAddrTable[n];
    if (!bd) return [];
    const master = masterAddress(bd);
    return [
      ...(master === undefined ? [] : [master]),
      ...Object.values(bd.brokerAddrs).filter((a) => a !== master),
    ];
  });
  return [...new Set(out)];
}

/** The masters a read asks, in order. */
async function readAddresses(ctx: AdminContext, target: AdminTarget): Promise<string[]> {
  return [...(await ctx.targets(target)).values()];
}

/** One request; REQUEST_CODE_NOT_SUPPORTED (a broker without ACL 2.0) → AuthAdminNotSupportedError. */
async function authCall<S extends HeaderSpec>(
  ctx: AdminContext,
  address: string,
  decl: RequestDeclaration<S>,
  header: HeaderOf<S>,
  body?: Uint8Array,
): Promise<RemotingCommand> {
  const response = await ctx.send(address, decl, header, body);
  if (response.code === ResponseCode.SUCCESS) return response;
  const err = ctx.failure(address, decl.code, response);
  if (err instanceof RequestNotSupportedError)
    throw new AuthAdminNotSupportedError(address, decl.code, decl.name, response.remark ?? '');
  throw err;
}

async function writeAll<S extends HeaderSpec>(
  ctx: AdminContext,
  target: AdminTarget,
  decl: RequestDeclaration<S>,
  header: HeaderOf<S>,
  body?: Uint8Array,
): Promise<string[]> {
  const addresses = await writeAddresses(ctx, target);
  for (const address of addresses) await authCall(ctx, address, decl, header, body);
  return addresses;
}

/** The first master whose answer `parse` finds something in (mqadmin get/list with -c). */
async function readFirst<S extends HeaderSpec, T>(
  ctx: AdminContext,
  target: AdminTarget,
  decl: RequestDeclaration<S>,
  header: HeaderOf<S>,
  parse: (body: Uint8Array | undefined) => T,
  found: (value: T) => boolean,
  none: T,
): Promise<T> {
  for (const address of await readAddresses(ctx, target)) {
    const value = parse((await authCall(ctx, address, decl, header)).body);
    if (found(value)) return value;
  }
  return none;
}

export async function createUser(
  ctx: AdminContext,
  user: CreateUserRequest,
  target: AdminTarget,
): Promise<string[]> {
  const info = checkUser(user, true);
  return writeAll(ctx, target, AuthCreateUser, { username: info.username }, encodeUserInfo(info));
}

export async function updateUser(
  ctx: AdminContext,
  user: UpdateUserRequest,
  target: AdminTarget,
): Promise<string[]> {
  const info = checkUser(user, false);
  return writeAll(ctx, target, AuthUpdateUser, { username: info.username }, encodeUserInfo(info));
}

export async function deleteUser(
  ctx: AdminContext,
  username: string,
  target: AdminTarget,
): Promise<string[]> {
  return writeAll(ctx, target, AuthDeleteUser, { username: nonBlank('username', username) });
}

export async function getUser(
  ctx: AdminContext,
  username: string,
  target: AdminTarget,
): Promise<UserInfo | undefined> {
  const header = { username: nonBlank('username', username) };
  return readFirst(ctx, target, AuthGetUser, header, parseUserInfo, (u) => u !== undefined, undefined);
}

export async function listUsers(
  ctx: AdminContext,
  filter: string | undefined,
  target: AdminTarget,
): Promise<UserInfo[]> {
  if (filter !== undefined && typeof filter !== 'string')
    throw new InvalidArgumentError('filter', 'must be a string');
  return readFirst(ctx, target, AuthListUser, { filter }, parseUserInfoList, (l) => l.length > 0, []);
}

export async function createAcl(ctx: AdminContext, acl: AclRequest, target: AdminTarget): Promise<string[]> {
  const info = checkAclRequest(acl);
  return writeAll(ctx, target, AuthCreateAcl, { subject: info.subject }, encodeAclInfo(info));
}

export async function updateAcl(ctx: AdminContext, acl: AclRequest, target: AdminTarget): Promise<string[]> {
  const info = checkAclRequest(acl);
  return writeAll(ctx, target, AuthUpdateAcl, { subject: info.subject }, encodeAclInfo(info));
}

/** Deletes the subject's entry on `resource`, or every entry of the subject without one. */
export async function deleteAcl(
  ctx: AdminContext,
  subject: string,
  resource: string | undefined,
  target: AdminTarget,
): Promise<string[]> {
  const header = {
    subject: checkSubject(subject),
    resource: resource === undefined ? undefined : checkResource(resource, 'resource'),
  };
  return writeAll(ctx, target, AuthDeleteAcl, header);
}

export async function getAcl(
  ctx: AdminContext,
  subject: string,
  target: AdminTarget,
): Promise<AclInfo | undefined> {
  const header = { subject: checkSubject(subject) };
  return readFirst(ctx, target, AuthGetAcl, header, parseAclInfo, (a) => a !== undefined, undefined);
}

export async function listAcl(
  ctx: AdminContext,
  filter: ListAclFilter,
  target: AdminTarget,
): Promise<AclInfo[]> {
  for (const k of Object.keys(filter))
    if (k !== 'subject' && k !== 'resource') throw new InvalidArgumentError(k, 'is not an ACL filter');
  const header = { subjectFilter: filter.subject, resourceFilter: filter.resource };
  return readFirst(ctx, target, AuthListAcl, header, parseAclInfoList, (l) => l.length > 0, []);
}
