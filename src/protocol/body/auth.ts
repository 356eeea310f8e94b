/**
 * [5.3+] Bodies of the ACL 2.0 admin requests (protocol/headers/auth-admin.ts): Java's
 * `UserInfo` and `AclInfo` (with its nested `PolicyInfo` and `PolicyEntryInfo`), written as
 * fastjson writes them (keys sorted, absent fields left out) and read tolerantly (unknown keys
 * ignored, an empty body = none). Values are Java's names: user types `Super`/`Normal`, statuses
 * `enable`/`disable`, subjects `User:<name>`, resources `Topic:<name>`, `Group:<name>`,
 * `Cluster:<name>`, `*`, actions `Pub`, `Sub`, `Get`, …, decisions `Allow`/`Deny`.
 */
import { ProtocolError } from '../../errors.js';
import { parseFastjsonBytes } from '../fastjson.js';
import { expectArray, expectObject, jsonString } from '../headers/fields.js';

/** Java `UserInfo`. */
export interface UserInfo {
  username: string;
  password?: string | undefined;
  /** `Super` or `Normal` (the broker's default). */
  userType?: string | undefined;
  /** `enable` (the broker's default) or `disable`. */
  userStatus?: string | undefined;
}

/** Java `AclInfo.PolicyEntryInfo`: one resource with its actions, source IPs and decision. */
export interface PolicyEntryInfo {
  resource: string;
  actions: string[];
  /** Client addresses or CIDR ranges the entry applies to; none = every address. */
  sourceIps?: string[] | undefined;
  /** `Allow` or `Deny`. */
  decision: string;
}

/** Java `AclInfo.PolicyInfo`. */
export interface PolicyInfo {
  /** `Custom` (the broker's default) or `Default`. */
  policyType?: string | undefined;
  entries: PolicyEntryInfo[];
}

/** Java `AclInfo`: the policies of one subject. */
export interface AclInfo {
  /** `User:<username>`. */
  subject: string;
  policies: PolicyInfo[];
}

/** A JSON object with its keys sorted and undefined values left out (fastjson's output). */
function sorted(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(fields).sort()) if (fields[k] !== undefined) out[k] = fields[k];
  return out;
}

function entryJson(e: PolicyEntryInfo): Record<string, unknown> {
  return sorted({
    resource: e.resource,
    actions: [...e.actions],
    sourceIps: e.sourceIps && [...e.sourceIps],
    decision: e.decision,
  });
}

function aclJson(a: AclInfo): Record<string, unknown> {
  return sorted({
    subject: a.subject,
    policies: a.policies.map((p) => sorted({ policyType: p.policyType, entries: p.entries.map(entryJson) })),
  });
}

export function encodeUserInfo(u: UserInfo): Buffer {
  return Buffer.from(
    JSON.stringify(
      sorted({ username: u.username, password: u.password, userType: u.userType, userStatus: u.userStatus }),
    ),
    'utf8',
  );
}

export function encodeUserInfoList(users: readonly UserInfo[]): Buffer {
  return Buffer.from(`[${users.map((u) => encodeUserInfo(u).toString('utf8')).join(',')}]`, 'utf8');
}

export function encodeAclInfo(a: AclInfo): Buffer {
  return Buffer.from(JSON.stringify(aclJson(a)), 'utf8');
}

export function encodeAclInfoList(acls: readonly AclInfo[]): Buffer {
  return Buffer.from(JSON.stringify(acls.map(aclJson)), 'utf8');
}

function isEmpty(body: Uint8Array | undefined): boolean {
  return body === undefined || body.length === 0 || Buffer.from(body).toString('utf8').trim() === 'null';
}

function optionalString(v: unknown, what: string): string | undefined {
  return v === undefined || v === null ? undefined : jsonString(v, what);
}

function stringList(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  return expectArray(v, what).map((x) => jsonString(x, what));
}

function userValue(v: unknown): UserInfo {
  const o = expectObject(v, 'UserInfo');
  const username = optionalString(o.username, 'UserInfo.username');
  if (username === undefined) throw new ProtocolError('UserInfo has no username');
  const user: UserInfo = { username };
  for (const k of ['password', 'userType', 'userStatus'] as const) {
    const s = optionalString(o[k], `UserInfo.${k}`);
    if (s !== undefined) user[k] = s;
  }
  return user;
}

function entryValue(v: unknown): PolicyEntryInfo {
  const o = expectObject(v, 'PolicyEntryInfo');
  const entry: PolicyEntryInfo = {
    resource: jsonString(o.resource, 'PolicyEntryInfo.resource', ''),
    actions: stringList(o.actions, 'PolicyEntryInfo.actions'),
    decision: jsonString(o.decision, 'PolicyEntryInfo.decision', ''),
  };
  if (o.sourceIps !== undefined && o.sourceIps !== null)
    entry.sourceIps = stringList(o.sourceIps, 'PolicyEntryInfo.sourceIps');
  return entry;
}

function aclValue(v: unknown): AclInfo {
  const o = expectObject(v, 'AclInfo');
  const policies = (
    o.policies === undefined || o.policies === null ? [] : expectArray(o.policies, 'AclInfo.policies')
  ).map((p) => {
    const po = expectObject(p, 'PolicyInfo');
    const policy: PolicyInfo = {
      entries: (po.entries == null ? [] : expectArray(po.entries, 'PolicyInfo.entries')).map(entryValue),
    };
    const type = optionalString(po.policyType, 'PolicyInfo.policyType');
    if (type !== undefined) policy.policyType = type;
    return policy;
  });
  return { subject: jsonString(o.subject, 'AclInfo.subject', ''), policies };
}

/** AUTH_GET_USER's answer: undefined for an empty body (no such user). */
export function parseUserInfo(body: Uint8Array | undefined): UserInfo | undefined {
  return isEmpty(body) ? undefined : userValue(parseFastjsonBytes(body!));
}

/** AUTH_LIST_USER's answer: [] for an empty body. */
export function parseUserInfoList(body: Uint8Array | undefined): UserInfo[] {
  return isEmpty(body) ? [] : expectArray(parseFastjsonBytes(body!), 'List<UserInfo>').map(userValue);
}

/** AUTH_GET_ACL's answer: undefined for an empty body (no ACL for the subject). */
export function parseAclInfo(body: Uint8Array | undefined): AclInfo | undefined {
  return isEmpty(body) ? undefined : aclValue(parseFastjsonBytes(body!));
}

/** AUTH_LIST_ACL's answer: [] for an empty body. */
export function parseAclInfoList(body: Uint8Array | undefined): AclInfo[] {
  return isEmpty(body) ? [] : expectArray(parseFastjsonBytes(body!), 'List<AclInfo>').map(aclValue);
}
