/**
 * The ACL table against the embedded broker: each case sends one served code (now and then one
 * nothing serves) with a fitting header, sometimes a stray or emptied field, and a body its rule
 * reads, signed as one of three accounts: an admin with PUB|SUB everywhere, a PUB-only account
 * and a DENY account. The answer is checked against the table (src/server/acl/request-rules.ts):
 * an ACL refusal exactly when the rule's admin flag, its resources or the field-fit rules say so
 * for that account, and a refused request changes nothing stored. VIEW_MESSAGE_BY_ID's answer is
 * checked against the topic of the message actually stored at the offset.
 */
import { signRequest } from '../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../src/protocol/command.js';
import { encodeLockBatchBody } from '../../src/protocol/headers/consumer.js';
import type { FieldSpec } from '../../src/protocol/headers/fields.js';
import { requestDeclaration } from '../../src/protocol/headers/registry.js';
import { encodeBatch } from '../../src/protocol/message/batch.js';
import { decodeProperties, encodeProperties } from '../../src/protocol/message/properties.js';
import { decodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { Connection } from '../../src/remoting/connection.js';
import type { RemotingServer } from '../../src/remoting/server.js';
import type { AclConfig } from '../../src/server/acl/acl-config.js';
import { BROKER_ACL_RULES, UNLISTED_RULE } from '../../src/server/acl/request-rules.js';
import type { Broker } from '../../src/server/broker/broker.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { NAMES, randomHeader } from '../commands.js';
import type { Random } from '../random.js';
import { describeError, violated, type FuzzTarget } from '../target.js';
import { brokerSnapshot } from './servers.js';

/** The three accounts, with the permission they own on every topic and every group. */
const ACCOUNTS = {
  admin: { accessKey: 'FuzzAdmin1', secretKey: 'fuzz-admin-secret', admin: true, topics: 12, groups: 12 },
  pubOnly: { accessKey: 'FuzzPubOnly', secretKey: 'fuzz-pub-secret', admin: false, topics: 4, groups: 4 },
  deny: { accessKey: 'FuzzDenied', secretKey: 'fuzz-deny-secret', admin: false, topics: 1, groups: 1 },
} as const;
type AccountName = keyof typeof ACCOUNTS;
const ACCOUNT_NAMES = Object.keys(ACCOUNTS) as AccountName[];
const PERM_TEXT: Record<number, string> = { 12: 'PUB|SUB', 4: 'PUB', 1: 'DENY' };

export const FUZZ_ACL: AclConfig = {
  accounts: Object.values(ACCOUNTS).map((a) => ({
    accessKey: a.accessKey,
    secretKey: a.secretKey,
    admin: a.admin,
    defaultTopicPerm: PERM_TEXT[a.topics],
    defaultGroupPerm: PERM_TEXT[a.groups],
  })),
};

/** The reasons the broker's ACL gives; any other NO_PERMISSION (a read-only topic) is not ACL's. */
const ACL_REFUSAL =
  /^(No accessKey is configured|No acl config for|Check signature failed|No default permission for|Need admin permission|Request fields do not fit|No SUB permission on the topic of the message|No PUB permission on the topic of the half message|ACL check cannot read the request)/;

/** Keys any request may carry besides its declared ones (docs/security.md §2.8). */
const ALWAYS_ALLOWED = new Set([
  'AccessKey',
  'Signature',
  'SecurityToken',
  'ns',
  'nsd',
  'bname',
  'oway',
  'lo',
]);

const TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';
const UNSERVED_CODE = 4242;

export interface AclCaseInput {
  code: number;
  account: AccountName;
  ext: Record<string, string>;
  /** Hex. */
  body?: string;
  /** What the generator did to the fields: a stray key, or a number field emptied. */
  misfit: boolean;
}

export interface AclContext {
  cluster: EmbeddedCluster;
  broker: Broker;
  conn: Connection;
  codes: number[];
  /** Commit-log offsets where a message starts (for VIEW_MESSAGE_BY_ID). */
  messageStarts: number[];
}

function body(r: Random, code: number): Uint8Array | undefined {
  const topic = r.pick([...NAMES.topics, TRACE_TOPIC]);
  const group = r.pick(NAMES.groups);
  switch (code) {
    case RequestCode.HEART_BEAT: {
      const text = JSON.stringify({
        clientID: '127.0.0.1@acl-fuzz',
        producerDataSet: [],
        consumerDataSet: [
          {
            groupName: group,
            consumeType: 'CONSUME_PASSIVELY',
            messageModel: 'CLUSTERING',
            consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
            subscriptionDataSet: [{ topic, subString: '*', tagsSet: [], codeSet: [], subVersion: 1 }],
            unitMode: false,
          },
        ],
      });
      // Sometimes cut short: a body the rule cannot read is Java's AclException, a refusal.
      return Buffer.from(r.chance(0.2) ? text.slice(0, r.int(text.length)) : text);
    }
    case RequestCode.LOCK_BATCH_MQ:
    case RequestCode.UNLOCK_BATCH_MQ:
      return encodeLockBatchBody({
        consumerGroup: group,
        clientId: '127.0.0.1@acl-fuzz',
        mqSet: [{ topic, brokerName: 'broker-a', queueId: 0 }],
      });
    case RequestCode.SEND_BATCH_MESSAGE:
      return encodeBatch([{ body: Buffer.from('a'), flag: 0, properties: '' }]);
    case RequestCode.SEND_MESSAGE:
    case RequestCode.SEND_MESSAGE_V2:
    case RequestCode.SEND_REPLY_MESSAGE:
    case RequestCode.SEND_REPLY_MESSAGE_V2:
      return Buffer.from('acl-fuzz');
    default:
      return undefined;
  }
}

/** Held pulls and pops wait briefly, so a case is answered quickly. */
function tame(ext: Record<string, string>): void {
  for (const k of ['suspendTimeoutMillis', 'pollTime']) if (k in ext) ext[k] = '10';
}

function generate(r: Random, ctx: AclContext): AclCaseInput {
  const code = r.chance(0.05) ? UNSERVED_CODE : r.pick(ctx.codes);
  const account = r.pick(ACCOUNT_NAMES);
  const decl = requestDeclaration(code);
  const ext = decl === undefined ? {} : randomHeader(r, decl.spec);
  // FAULT_INJECTION has no declaration, so it goes without fields: from the admin it clears.
  tame(ext);
  // The codes checked after a lookup by offset get real message starts, a half message's too.
  if (code === RequestCode.VIEW_MESSAGE_BY_ID && r.chance(0.8))
    ext['offset'] = String(r.pick(ctx.messageStarts));
  if (code === RequestCode.END_TRANSACTION && r.chance(0.8)) {
    ext['commitLogOffset'] = String(r.pick(ctx.messageStarts));
    ext['commitOrRollback'] = r.pick(['8', '12']);
    ext['producerGroup'] = 'FuzzGroup';
  }
  let misfit = false;
  if (code !== UNSERVED_CODE && decl !== undefined && r.chance(0.1)) {
    ext[`stray${r.int(100)}`] = r.chance(0.5) ? '' : r.string(4);
    misfit = true;
  }
  // No body for UPDATE_BROKER_CONFIG: an admin's random settings would change every later case.
  const b = code === RequestCode.UPDATE_BROKER_CONFIG ? undefined : body(r, code);
  return { code, account, ext, ...(b === undefined ? {} : { body: Buffer.from(b).toString('hex') }), misfit };
}

/** Permission check of docs/security.md §2.2, written apart from the broker's. */
function owns(account: AccountName, resource: string, needed: number): boolean {
  const a = ACCOUNTS[account];
  const owned = resource.startsWith('%RETRY%') ? a.groups : a.topics;
  if (owned === 1) return false;
  if (needed === 2) return (owned & 12) !== 0;
  return (needed & owned) !== 0;
}

/** Whether the fields break §2.8 (a stray key, an empty number or boolean), apart from the broker's check. */
function breaksFieldRules(input: AclCaseInput): boolean {
  const decl = requestDeclaration(input.code);
  if (decl === undefined) return false;
  const byKey = new Map<string, FieldSpec>(Object.entries(decl.spec).map(([n, f]) => [f.key ?? n, f]));
  return Object.entries(input.ext).some(([key, value]) => {
    const spec = byKey.get(key);
    if (spec === undefined) return !ALWAYS_ALLOWED.has(key) && key !== '_UNIQUE_KEY_QUERY';
    return value === '' && spec.kind !== 'string';
  });
}

/** Why the table says `request` must be refused for `account`, or undefined when it must pass. */
function expectedRefusal(input: AclCaseInput, request: RemotingCommand, served: boolean): string | undefined {
  if (!served) return undefined;
  if (breaksFieldRules(input)) return 'fields do not fit';
  const rule = BROKER_ACL_RULES.get(input.code) ?? UNLISTED_RULE;
  let needs: Map<string, number>;
  try {
    needs = rule.needs(request);
  } catch {
    return 'unreadable fields or body';
  }
  if (needs.get(TRACE_TOPIC) === 4) return undefined;
  if (rule.admin && !ACCOUNTS[input.account].admin) return 'admin only';
  for (const [resource, perm] of needs)
    if (!owns(input.account, resource, perm)) return `needs ${perm} on ${resource}`;
  return undefined;
}

async function run(input: AclCaseInput, ctx: AclContext): Promise<void> {
  const served = ctx.codes.includes(input.code);
  const request = createRequest(
    input.code,
    { ...input.ext },
    input.body === undefined ? undefined : Buffer.from(input.body, 'hex'),
  );
  const who = ACCOUNTS[input.account];
  signRequest(request, who.accessKey, who.secretKey);
  const expected = expectedRefusal(input, { ...request, extFields: { ...input.ext } }, served);
  if (input.misfit && served && expected === undefined)
    violated('generator: a misfit case the oracle accepts');
  const before = brokerSnapshot(ctx.broker);
  const resolvedBefore = ctx.broker.transactions.isResolved(Number(input.ext['commitLogOffset']));
  let response: RemotingCommand;
  try {
    response = await ctx.conn.request(request, 5000);
  } catch (err) {
    violated(`code ${input.code} as ${input.account}: no answer (${describeError(err)})`);
  }
  const refusedByAcl =
    response.code === ResponseCode.NO_PERMISSION && ACL_REFUSAL.test(response.remark ?? '');
  const what = `code ${input.code} as ${input.account}`;
  if (expected === undefined && input.code === RequestCode.VIEW_MESSAGE_BY_ID) {
    await checkView(input, ctx, response, refusedByAcl);
    return;
  }
  if (expected === undefined && input.code === RequestCode.END_TRANSACTION) {
    await checkEndTransaction(input, ctx, response, refusedByAcl, resolvedBefore);
    return;
  }
  if (expected !== undefined && !refusedByAcl)
    violated(
      `${what}: the table refuses it (${expected}) but the broker answered ${response.code} ${response.remark ?? ''}`,
    );
  if (expected === undefined && refusedByAcl)
    violated(`${what}: the table allows it but the broker refused: ${response.remark ?? ''}`);
  if (refusedByAcl && brokerSnapshot(ctx.broker) !== before)
    violated(`${what}: refused (${response.remark ?? ''}) but the stored state changed`);
}

/** VIEW_MESSAGE_BY_ID: allowed exactly when the account holds SUB on the topic stored at the offset. */
async function checkView(
  input: AclCaseInput,
  ctx: AclContext,
  response: RemotingCommand,
  refusedByAcl: boolean,
): Promise<void> {
  const message = await storedAt(ctx, input.ext['offset']);
  const what = `VIEW_MESSAGE_BY_ID at ${input.ext['offset']} as ${input.account}`;
  if (message === undefined) {
    if (refusedByAcl) violated(`${what}: no message there, yet an ACL refusal: ${response.remark ?? ''}`);
    return;
  }
  const topic = message.topic;
  const may = owns(input.account, topic, 8);
  if (may && refusedByAcl) violated(`${what}: SUB on ${topic} is owned, yet refused`);
  if (!may && response.code === ResponseCode.SUCCESS)
    violated(`${what}: the message of ${topic} was shown without SUB`);
}

/** The stored message at a field's offset, if one starts there. */
async function storedAt(ctx: AclContext, text: string | undefined) {
  const offset = Number(text);
  const record =
    Number.isSafeInteger(offset) && offset >= 0 ? await ctx.broker.store.readMessageAt(offset) : undefined;
  return record === undefined ? undefined : decodeStoredMessage(record).message;
}

/**
 * END_TRANSACTION: refused after the lookup exactly when the account lacks PUB on the half
 * message's real topic; without PUB, no half message may become resolved.
 */
async function checkEndTransaction(
  input: AclCaseInput,
  ctx: AclContext,
  response: RemotingCommand,
  refusedByAcl: boolean,
  resolvedBefore: boolean,
): Promise<void> {
  const half = await storedAt(ctx, input.ext['commitLogOffset']);
  const realTopic = half === undefined ? undefined : decodeProperties(half.properties)['REAL_TOPIC'];
  const what = `END_TRANSACTION at ${input.ext['commitLogOffset']} as ${input.account}`;
  const may = realTopic === undefined || owns(input.account, realTopic, 4);
  if (may && refusedByAcl) violated(`${what}: the table allows it, yet refused: ${response.remark ?? ''}`);
  const resolvedNow = ctx.broker.transactions.isResolved(Number(input.ext['commitLogOffset']));
  if (!may && !resolvedBefore && resolvedNow)
    violated(`${what}: ended a transaction of ${realTopic} without PUB`);
}

export const aclTarget: FuzzTarget<AclCaseInput, AclContext> = {
  name: 'acl',
  description:
    'every served broker code signed as an admin, a PUB-only and a DENY account, answers checked against the ACL table',
  caseTimeoutMs: 10_000,
  async setup() {
    const cluster = await EmbeddedCluster.start({
      brokers: 1,
      faultInjection: true,
      brokerOptions: { acl: FUZZ_ACL },
    });
    const broker = cluster.broker('broker-a');
    await cluster.createTopic(NAMES.topics[0] as string, 2);
    // Messages in a topic, in a group's retry topic and a half message, for the checks by offset.
    const conn = await Connection.connect(broker.address);
    const half = { sysFlag: '4', properties: encodeProperties({ TRAN_MSG: 'true', PGROUP: 'FuzzGroup' }) };
    const seeds = [
      { topic: NAMES.topics[0] as string, sysFlag: '0', properties: '' },
      { topic: '%RETRY%FuzzGroup', sysFlag: '0', properties: '' },
      // Several, so that some are still open when a DENY account tries to end one.
      ...Array.from({ length: 12 }, () => ({ topic: NAMES.topics[0] as string, ...half })),
    ];
    for (const { topic, sysFlag, properties } of seeds) {
      const seed = createRequest(
        RequestCode.SEND_MESSAGE,
        {
          producerGroup: 'FuzzGroup',
          topic,
          defaultTopic: 'TBW102',
          defaultTopicQueueNums: '4',
          queueId: '0',
          sysFlag,
          bornTimestamp: '0',
          flag: '0',
          properties,
        },
        Buffer.from('seed'),
      );
      signRequest(seed, ACCOUNTS.admin.accessKey, ACCOUNTS.admin.secretKey);
      const r = await conn.request(seed, 5000);
      if (r.code !== ResponseCode.SUCCESS) throw new Error(`seeding ${topic}: ${r.code} ${r.remark ?? ''}`);
    }
    const messageStarts: number[] = [];
    for (let at = 0; at < broker.store.maxPhysicalOffset;) {
      const record = await broker.store.readMessageAt(at);
      if (record === undefined) break;
      messageStarts.push(at);
      at += Buffer.from(record).readInt32BE(0);
    }
    const codes = (broker['server'] as RemotingServer).requestCodes;
    return { cluster, broker, conn, codes, messageStarts };
  },
  generate,
  run,
  async teardown(ctx) {
    ctx.conn.close();
    await ctx.cluster.stop();
  },
};
