/**
 * The embedded broker's ACL configuration: the `plain_acl.yml` shape (docs/security.md §2.1),
 * given inline as `BrokerOptions.acl` or read from that file, compiled once per load.
 */
import { InvalidArgumentError } from '../../errors.js';
import { checkBoolean, checkObject, rejectUnknownKeys } from '../../options.js';
import { addressMatcher, type AddressMatcher } from './remote-address.js';
import { parsePerm, parseResourcePerms, Perm } from './permission.js';
import { parseYamlSubset } from './yaml-subset.js';

/** Group resources are stored under their retry topic, as Java does. */
export const RETRY_PREFIX = '%RETRY%';

export interface AclAccount {
  /** Longer than 6 characters (Java). */
  accessKey: string;
  /** Longer than 6 characters (Java). */
  secretKey: string;
  /** Clients from a matching address skip the signature and permission checks. @default undefined */
  whiteRemoteAddress?: string | null | undefined;
  /** Required for the admin codes (Java's 17, 25, 215, 200, 207; ours also 9901: request-rules.ts). @default false */
  admin?: boolean | undefined;
  /** Permission on unlisted topics: DENY, PUB, SUB, PUB|SUB, ANY. @default 'DENY' */
  defaultTopicPerm?: string | undefined;
  /** Permission on unlisted groups. @default 'DENY' */
  defaultGroupPerm?: string | undefined;
  /** `Topic=PERM` entries. @default [] */
  topicPerms?: string[] | undefined;
  /** `Group=PERM` entries. @default [] */
  groupPerms?: string[] | undefined;
}

export interface AclConfig {
  accounts: AclAccount[];
  /** A matching client skips every check. @default [] */
  globalWhiteRemoteAddresses?: string[] | undefined;
}

export interface CompiledAccount {
  readonly accessKey: string;
  readonly secretKey: string;
  readonly admin: boolean;
  readonly white: AddressMatcher;
  readonly defaultTopicPerm: number;
  readonly defaultGroupPerm: number;
  /** Topic names and `%RETRY%group` names → permission. */
  readonly perms: ReadonlyMap<string, number>;
}

export interface CompiledAcl {
  readonly globalWhite: readonly AddressMatcher[];
  readonly accounts: ReadonlyMap<string, CompiledAccount>;
}

const CONFIG_KEYS = ['accounts', 'globalWhiteRemoteAddresses', 'dataVersion'];
const ACCOUNT_KEYS = [
  'accessKey',
  'secretKey',
  'whiteRemoteAddress',
  'admin',
  'defaultTopicPerm',
  'defaultGroupPerm',
  'topicPerms',
  'groupPerms',
];

function list(field: string, value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InvalidArgumentError(field, 'must be a list');
  return value;
}

/** Validates and compiles; throws InvalidArgumentError naming the field (`acl.accounts[1].secretKey`). */
export function compileAcl(config: unknown, field = 'acl'): CompiledAcl {
  checkObject(field, config);
  rejectUnknownKeys(config, CONFIG_KEYS, 'option', `${field}.`);
  const globalWhite = list(`${field}.globalWhiteRemoteAddresses`, config['globalWhiteRemoteAddresses']).map(
    (p, i) => addressMatcher(`${field}.globalWhiteRemoteAddresses[${i}]`, p),
  );
  const accounts = new Map<string, CompiledAccount>();
  list(`${field}.accounts`, config['accounts']).forEach((raw, i) => {
    const f = `${field}.accounts[${i}]`;
    checkObject(f, raw);
    rejectUnknownKeys(raw, ACCOUNT_KEYS, 'option', `${f}.`);
    const { accessKey, secretKey } = raw;
    if (
      typeof accessKey !== 'string' ||
      typeof secretKey !== 'string' ||
      accessKey.length <= 6 ||
      secretKey.length <= 6
    )
      throw new InvalidArgumentError(
        f,
        `The accessKey=${String(accessKey)} and secretKey=*** cannot be null and length should longer than 6`,
      );
    // Java: an accessKey defined twice keeps its first definition.
    if (accounts.has(accessKey)) return;
    const perms = new Map<string, number>([
      ...parseResourcePerms(`${f}.topicPerms`, list(`${f}.topicPerms`, raw['topicPerms'])),
      ...parseResourcePerms(`${f}.groupPerms`, list(`${f}.groupPerms`, raw['groupPerms']), RETRY_PREFIX),
    ]);
    const admin = raw['admin'] === undefined || raw['admin'] === null ? false : raw['admin'];
    accounts.set(accessKey, {
      accessKey,
      secretKey,
      admin: checkBoolean(`${f}.admin`, admin),
      white: addressMatcher(`${f}.whiteRemoteAddress`, raw['whiteRemoteAddress']),
      defaultTopicPerm: raw['defaultTopicPerm'] == null ? Perm.DENY : parsePerm(raw['defaultTopicPerm']),
      defaultGroupPerm: raw['defaultGroupPerm'] == null ? Perm.DENY : parsePerm(raw['defaultGroupPerm']),
      perms,
    });
  });
  return { globalWhite, accounts };
}

/** Reads a `plain_acl.yml` text; an empty file means no accounts (Java creates it empty). */
export function compilePlainAclYaml(text: string, field = 'acl'): CompiledAcl {
  const doc = parseYamlSubset(text);
  return compileAcl(doc === null ? { accounts: [] } : doc, field);
}
