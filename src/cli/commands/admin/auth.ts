/**
 * mqadmin's ACL 2.0 commands (RocketMQ 5.3+; tools `command/auth/*SubCommand`): createUser,
 * updateUser, deleteUser, getUser, listUser, createAcl, updateAcl, deleteAcl, getAcl, listAcl.
 * `-b` one broker or `-c` a cluster (changes go to its masters and slaves, reads to its masters),
 * with mqadmin's short flags. docs/security.md §6.
 */
import type { AclInfo, UserInfo } from '../../../admin/acl2.js';
import { BROKER_OR_CLUSTER_FLAGS, defineAdminCommand, need, target, type AdminOutput } from './define.js';

const TARGET = BROKER_OR_CLUSTER_FLAGS;
const WRITE_TARGET_DOCS = {
  broker: ['ADDR', 'this broker (host:port, or a broker name: its master)'],
  cluster: ['C', 'every broker of this cluster, masters and slaves'],
} as const;
const READ_TARGET_DOCS = {
  broker: ['ADDR', 'this broker (host:port, or a broker name: its master)'],
  cluster: ['C', 'the masters of this cluster, the first that has an answer'],
} as const;

/** mqadmin's comma lists (`-r Topic:a,Group:b`), blanks dropped. */
function commaList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function written(what: string, addresses: string[]): AdminOutput {
  return { json: { addresses }, lines: addresses.map((a) => `${what} to ${a} success.`) };
}

function userTable(users: UserInfo[]): string[][] {
  return [
    ['#UserName', '#Password', '#UserType', '#UserStatus'],
    ...users.map((u) => [u.username, u.password ?? '', u.userType ?? '', u.userStatus ?? '']),
  ];
}

function aclTable(acls: AclInfo[]): string[][] {
  const rows = [['#Subject', '#PolicyType', '#Resource', '#Actions', '#SourceIp', '#Decision']];
  for (const acl of acls) {
    if (acl.policies.length === 0) rows.push([acl.subject, '', '', '', '', '']);
    for (const p of acl.policies)
      for (const e of p.entries)
        rows.push([
          acl.subject,
          p.policyType ?? '',
          e.resource,
          e.actions.join(','),
          (e.sourceIps ?? []).join(','),
          e.decision,
        ]);
  }
  return rows;
}

export const createUserCommand = defineAdminCommand({
  name: 'createUser',
  summary: '[5.3+] Create an ACL 2.0 user on a broker or every broker of a cluster',
  description: `Sends AUTH_CREATE_USER (3001) with the user as body. Only a Super user may create a Super user.
Needs a RocketMQ 5.3+ broker with ACL 2.0; others answer "not supported".`,
  flags: {
    ...TARGET,
    username: { type: 'string', short: 'u' },
    password: { type: 'string', short: 'p' },
    'user-type': { type: 'string', short: 't' },
  },
  docs: {
    ...WRITE_TARGET_DOCS,
    username: ['U', 'user name (required)'],
    password: ['P', 'password (required)'],
    'user-type': ['T', 'Super or Normal (default: Normal)'],
  },
  async run(admin, values) {
    const addresses = await admin.createUser(
      {
        username: need('username', values.username),
        password: need('password', values.password),
        ...(values['user-type'] !== undefined ? { userType: values['user-type'] } : {}),
      },
      target(values.broker, values.cluster),
    );
    return written('create user', addresses);
  },
});

export const updateUserCommand = defineAdminCommand({
  name: 'updateUser',
  summary: "[5.3+] Change an ACL 2.0 user's password, type or status",
  description: `Sends AUTH_UPDATE_USER (3002); the fields not given keep their value. An unknown user is refused.`,
  flags: {
    ...TARGET,
    username: { type: 'string', short: 'u' },
    password: { type: 'string', short: 'p' },
    'user-type': { type: 'string', short: 't' },
    'user-status': { type: 'string', short: 's' },
  },
  docs: {
    ...WRITE_TARGET_DOCS,
    username: ['U', 'user name (required)'],
    password: ['P', 'new password'],
    'user-type': ['T', 'Super or Normal'],
    'user-status': ['S', 'enable or disable'],
  },
  async run(admin, values) {
    const addresses = await admin.updateUser(
      {
        username: need('username', values.username),
        ...(values.password !== undefined ? { password: values.password } : {}),
        ...(values['user-type'] !== undefined ? { userType: values['user-type'] } : {}),
        ...(values['user-status'] !== undefined ? { userStatus: values['user-status'] } : {}),
      },
      target(values.broker, values.cluster),
    );
    return written('update user', addresses);
  },
});

export const deleteUserCommand = defineAdminCommand({
  name: 'deleteUser',
  summary: '[5.3+] Delete an ACL 2.0 user',
  description: 'Sends AUTH_DELETE_USER (3003); deleting a user that does not exist succeeds.',
  flags: { ...TARGET, username: { type: 'string', short: 'u' } },
  docs: { ...WRITE_TARGET_DOCS, username: ['U', 'user name (required)'] },
  async run(admin, values) {
    const addresses = await admin.deleteUser(
      need('username', values.username),
      target(values.broker, values.cluster),
    );
    return written('delete user', addresses);
  },
});

export const getUserCommand = defineAdminCommand({
  name: 'getUser',
  summary: '[5.3+] One ACL 2.0 user',
  description: 'Sends AUTH_GET_USER (3004); prints nothing when the user does not exist.',
  flags: { ...TARGET, username: { type: 'string', short: 'u' } },
  docs: { ...READ_TARGET_DOCS, username: ['U', 'user name (required)'] },
  async run(admin, values) {
    const user = await admin.getUser(
      need('username', values.username),
      target(values.broker, values.cluster),
    );
    return { json: user ?? null, tables: user ? [userTable([user])] : [] };
  },
});

export const listUserCommand = defineAdminCommand({
  name: 'listUser',
  summary: '[5.3+] ACL 2.0 users, optionally those whose name contains a filter',
  description: 'Sends AUTH_LIST_USER (3005).',
  flags: { ...TARGET, filter: { type: 'string', short: 'f' } },
  docs: { ...READ_TARGET_DOCS, filter: ['F', 'only user names containing this'] },
  async run(admin, values) {
    const users = await admin.listUsers(values.filter, target(values.broker, values.cluster));
    return { json: users, tables: users.length > 0 ? [userTable(users)] : [] };
  },
});

const ACL_FLAGS = {
  ...TARGET,
  subject: { type: 'string', short: 's' },
  resources: { type: 'string', short: 'r' },
  actions: { type: 'string', short: 'a' },
  'source-ip': { type: 'string', short: 'i' },
  decision: { type: 'string', short: 'd' },
} as const;
const ACL_DOCS = {
  ...WRITE_TARGET_DOCS,
  subject: ['S', 'User:<name> (required)'],
  resources: ['R', 'comma list: Topic:<t>, Group:<g>, Cluster:<c>, Namespace:<n>, * (required)'],
  actions: ['A', 'comma list: Pub, Sub, Create, Update, Delete, Get, List, All, Any (required)'],
  'source-ip': ['IPS', 'comma list of client addresses or CIDR ranges (default: any)'],
  decision: ['D', 'Allow or Deny (required)'],
} as const;

function aclRequest(values: {
  subject?: string | undefined;
  resources?: string | undefined;
  actions?: string | undefined;
  'source-ip'?: string | undefined;
  decision?: string | undefined;
}) {
  return {
    subject: need('subject', values.subject),
    resources: commaList(need('resources', values.resources)),
    actions: commaList(need('actions', values.actions)),
    ...(values['source-ip'] !== undefined ? { sourceIps: commaList(values['source-ip']) } : {}),
    decision: need('decision', values.decision),
  };
}

export const createAclCommand = defineAdminCommand({
  name: 'createAcl',
  summary: '[5.3+] Grant or deny a user actions on resources (ACL 2.0)',
  description: `Sends AUTH_CREATE_ACL (3006): one Custom policy with an entry per resource, each with the
actions, source IPs and decision given (as mqadmin createAcl).`,
  flags: ACL_FLAGS,
  docs: ACL_DOCS,
  async run(admin, values) {
    const addresses = await admin.createAcl(aclRequest(values), target(values.broker, values.cluster));
    return written('create acl', addresses);
  },
});

export const updateAclCommand = defineAdminCommand({
  name: 'updateAcl',
  summary: "[5.3+] Replace a user's ACL entries on resources (ACL 2.0)",
  description: 'Sends AUTH_UPDATE_ACL (3007), built as createAcl builds it.',
  flags: ACL_FLAGS,
  docs: ACL_DOCS,
  async run(admin, values) {
    const addresses = await admin.updateAcl(aclRequest(values), target(values.broker, values.cluster));
    return written('update acl', addresses);
  },
});

export const deleteAclCommand = defineAdminCommand({
  name: 'deleteAcl',
  summary: "[5.3+] Delete a user's ACL entry on a resource, or all its entries",
  description: 'Sends AUTH_DELETE_ACL (3008); without --resources every entry of the subject goes.',
  flags: { ...TARGET, subject: { type: 'string', short: 's' }, resources: { type: 'string', short: 'r' } },
  docs: {
    ...WRITE_TARGET_DOCS,
    subject: ['S', 'User:<name> (required)'],
    resources: ['R', 'the resource whose entry goes (default: all)'],
  },
  async run(admin, values) {
    const addresses = await admin.deleteAcl(
      need('subject', values.subject),
      values.resources,
      target(values.broker, values.cluster),
    );
    return written('delete acl', addresses);
  },
});

export const getAclCommand = defineAdminCommand({
  name: 'getAcl',
  summary: "[5.3+] A user's ACL entries",
  description: 'Sends AUTH_GET_ACL (3009): one row per policy entry; nothing when the subject has none.',
  flags: { ...TARGET, subject: { type: 'string', short: 's' } },
  docs: { ...READ_TARGET_DOCS, subject: ['S', 'User:<name> (required)'] },
  async run(admin, values) {
    const acl = await admin.getAcl(need('subject', values.subject), target(values.broker, values.cluster));
    return { json: acl ?? null, tables: acl ? [aclTable([acl])] : [] };
  },
});

export const listAclCommand = defineAdminCommand({
  name: 'listAcl',
  summary: '[5.3+] ACL entries, optionally filtered by subject and resource',
  description: 'Sends AUTH_LIST_ACL (3010): one row per policy entry.',
  flags: { ...TARGET, subject: { type: 'string', short: 's' }, resource: { type: 'string', short: 'r' } },
  docs: {
    ...READ_TARGET_DOCS,
    subject: ['S', 'only subjects containing this'],
    resource: ['R', 'only resources containing this'],
  },
  async run(admin, values) {
    const acls = await admin.listAcl(
      {
        ...(values.subject !== undefined ? { subject: values.subject } : {}),
        ...(values.resource !== undefined ? { resource: values.resource } : {}),
      },
      target(values.broker, values.cluster),
    );
    return { json: acls, tables: acls.length > 0 ? [aclTable(acls)] : [] };
  },
});
