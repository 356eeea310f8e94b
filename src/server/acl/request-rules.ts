/**
 * The ACL rule of every request code the embedded broker serves (docs/security.md §2.3): which
 * topic and group resources a request needs, with which permission, and whether only an admin
 * account may send it. Java's `PlainAccessValidator#parse` and `Permission.ADMIN_CODE` are the
 * reference; where Java checks nothing on a code that reads or changes another account's data,
 * the rule is stricter and says why (`stricter`). Fields are read through each code's request
 * declaration (src/protocol/headers/), the one the processor decodes with, so the rule and the
 * processor cannot disagree on which field names the topic.
 *
 * A served code without a rule is admin-only (fail closed); test/server/acl/request-rules.test.ts
 * fails when one exists, and the fuzz target `acl` checks every answer against this table.
 */
import { RequestCode } from '../../protocol/codes.js';
import type { RemotingCommand } from '../../protocol/command.js';
import { parseLockBatchBody } from '../../protocol/headers/consumer.js';
import type { HeaderSpec, RequestDeclaration } from '../../protocol/headers/fields.js';
import { parseHeartbeatData } from '../../protocol/headers/heartbeat.js';
import { decodeBatchAckBody } from '../../protocol/pop/batch-ack.js';
import { parseQueryAssignmentRequest } from '../../protocol/body/assignment.js';
import { requestDeclaration } from '../../protocol/headers/registry.js';
import { FAULT_INJECTION_REQUEST_CODE } from '../broker/faults.js';
import { RETRY_PREFIX } from './acl-config.js';
import { Perm } from './permission.js';

/** Resource → needed permission; group resources are `%RETRY%group`, as Java stores them. */
export type Needs = Map<string, number>;

export interface AclRule {
  /** Only accounts with `admin: true` may send it. */
  readonly admin: boolean;
  /** The resources the request needs (throws on fields it cannot read: Java's AclException). */
  readonly needs: (request: RemotingCommand) => Needs;
  /** The rule in words, for docs/security.md's table. */
  readonly text: string;
  /** Why this is stricter than Java, when it is. */
  readonly stricter?: string;
}

const groupResource = (group: string | undefined): string | undefined =>
  group === undefined || group === '' ? undefined : RETRY_PREFIX + group;

/** What a rule reads: the declared header fields (by property name) and the body. */
interface Reader {
  field(name: string): string | undefined;
  readonly body: Uint8Array | undefined;
}

function reader(request: RemotingCommand): Reader {
  const decl = requestDeclaration(request.code);
  const ext = request.extFields ?? {};
  return {
    field: (name) => ext[fieldKey(decl, name)],
    body: request.body,
  };
}

/** The wire key of a declared field (V2 sends use one-letter keys). */
function fieldKey(decl: RequestDeclaration<HeaderSpec> | undefined, name: string): string {
  return decl?.spec[name]?.key ?? name;
}

type Builder = (r: Reader, add: (resource: string | undefined, perm: number) => void) => void;

function rule(text: string, build: Builder, extra: { admin?: boolean; stricter?: string } = {}): AclRule {
  return {
    admin: extra.admin ?? false,
    text,
    ...(extra.stricter === undefined ? {} : { stricter: extra.stricter }),
    needs(request) {
      const need: Needs = new Map();
      build(reader(request), (resource, perm) => {
        if (resource !== undefined && resource !== '') need.set(resource, perm);
      });
      return need;
    },
  };
}

const nothing: Builder = () => undefined;
const topicAnd =
  (topicPerm: number, groupField: string | undefined, groupPerm: number = Perm.SUB): Builder =>
  (r, add) => {
    add(r.field('topic'), topicPerm);
    if (groupField !== undefined) add(groupResource(r.field(groupField)), groupPerm);
  };
const groupOnly =
  (groupField: string, perm: number): Builder =>
  (r, add) =>
    add(groupResource(r.field(groupField)), perm);

/** Sends: PUB on the topic; a send into a retry topic is a consumer's send-back, SUB on that group. */
function sendRule(code: number): AclRule {
  const stricter =
    code === RequestCode.SEND_BATCH_MESSAGE
      ? 'Java 4.9.7 checks nothing on batches (5.x does since apache/rocketmq#5303): a DENY account could store into, and auto-create, any topic'
      : code === RequestCode.SEND_REPLY_MESSAGE || code === RequestCode.SEND_REPLY_MESSAGE_V2
        ? 'Java checks nothing on replies: any account could store into any topic'
        : 'Java checks SUB on the `group` field of a retry-topic send, so any group’s retry topic could be written into; we check the retry topic written to';
  return {
    admin: false,
    text: 'PUB on `topic`; a send into `%RETRY%g` needs SUB on group g',
    stricter,
    needs(request) {
      const topic = reader(request).field('topic');
      const need: Needs = new Map();
      if (topic === undefined || topic === '') return need;
      need.set(topic, topic.startsWith(RETRY_PREFIX) ? Perm.SUB : Perm.PUB);
      return need;
    },
  };
}

const SUB_TOPIC_AND_GROUP = 'SUB on `topic` and on group `consumerGroup`';
const ANY_TOPIC = 'PUB or SUB on `topic`';
const ANY_TOPIC_WHY =
  'Java 4.9.7 checks nothing (5.5.0’s ACL 2.0 checks the topic): offsets and stats of a topic are for accounts that use it';
const NONE = 'none (signature only, as Java)';
const ADMIN_ONLY = 'admin account';

const RULES: ReadonlyArray<[number, AclRule]> = [
  [RequestCode.SEND_MESSAGE, sendRule(RequestCode.SEND_MESSAGE)],
  [RequestCode.SEND_MESSAGE_V2, sendRule(RequestCode.SEND_MESSAGE_V2)],
  [RequestCode.SEND_BATCH_MESSAGE, sendRule(RequestCode.SEND_BATCH_MESSAGE)],
  [RequestCode.SEND_REPLY_MESSAGE, sendRule(RequestCode.SEND_REPLY_MESSAGE)],
  [RequestCode.SEND_REPLY_MESSAGE_V2, sendRule(RequestCode.SEND_REPLY_MESSAGE_V2)],
  [RequestCode.CONSUMER_SEND_MSG_BACK, rule('SUB on group `group`', groupOnly('group', Perm.SUB))],
  [RequestCode.PULL_MESSAGE, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [RequestCode.UPDATE_CONSUMER_OFFSET, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [
    RequestCode.QUERY_CONSUMER_OFFSET,
    rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'), {
      stricter:
        "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could read any group's progress",
    }),
  ],
  [RequestCode.POP_MESSAGE, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [RequestCode.ACK_MESSAGE, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [RequestCode.NOTIFICATION, rule(SUB_TOPIC_AND_GROUP, topicAnd(Perm.SUB, 'consumerGroup'))],
  [
    RequestCode.BATCH_ACK_MESSAGE,
    rule('SUB on each entry’s topic and consumer group (the body’s `t` and `c`)', (r, add) => {
      if (r.body === undefined || r.body.length === 0) return;
      for (const ack of decodeBatchAckBody(r.body).acks) {
        add(ack.topic, Perm.SUB);
        add(groupResource(ack.consumerGroup), Perm.SUB);
      }
    }),
  ],
  [
    RequestCode.GET_SUBSCRIPTIONGROUP_CONFIG,
    rule('SUB on group `group`', groupOnly('group', Perm.SUB), {
      stricter: 'Java 4.9.7 checks nothing: any account could read, and auto-create, any subscription group',
    }),
  ],
  [
    RequestCode.QUERY_ASSIGNMENT,
    rule(
      'SUB on the body’s `topic` and group `consumerGroup`',
      (r, add) => {
        if (r.body === undefined || r.body.length === 0) return;
        const q = parseQueryAssignmentRequest(r.body);
        add(q.topic, Perm.SUB);
        add(groupResource(q.consumerGroup), Perm.SUB);
      },
      { stricter: "Java 4.9.7 has no such code; 5.5.0's ACL 2.0 checks the same" },
    ),
  ],
  [RequestCode.SET_MESSAGE_REQUEST_MODE, rule(ADMIN_ONLY, nothing, { admin: true })],
  [RequestCode.QUERY_MESSAGE, rule('SUB on `topic`', topicAnd(Perm.SUB, undefined))],
  [
    RequestCode.VIEW_MESSAGE_BY_ID,
    rule('SUB on the topic of the stored message (checked by the processor after the lookup)', nothing, {
      stricter:
        'Java 4.9.7 checks nothing, and offsets count up from 0: any account could read the whole commit log (5.5.0 checks the topic the client names, not the stored one)',
    }),
  ],
  [
    RequestCode.HEART_BEAT,
    rule('SUB on each consumer group and each subscribed topic of the body', (r, add) => {
      if (r.body === undefined || r.body.length === 0) return;
      for (const c of parseHeartbeatData(r.body).consumerDataSet) {
        add(groupResource(c.groupName), Perm.SUB);
        for (const s of c.subscriptionDataSet) add(s.topic, Perm.SUB);
      }
    }),
  ],
  [RequestCode.UNREGISTER_CLIENT, rule('SUB on group `consumerGroup`', groupOnly('consumerGroup', Perm.SUB))],
  [
    RequestCode.GET_CONSUMER_LIST_BY_GROUP,
    rule('SUB on group `consumerGroup`', groupOnly('consumerGroup', Perm.SUB)),
  ],
  [
    RequestCode.END_TRANSACTION,
    rule(
      'PUB on `topic` when the header has one (5.x), and PUB on the half message’s real topic (checked by the processor after the lookup)',
      topicAnd(Perm.PUB, undefined),
      {
        stricter:
          'Java 4.9 checks nothing (its header has no topic): any account could commit or roll back any transaction by its offset',
      },
    ),
  ],
  [RequestCode.RECALL_MESSAGE, rule('PUB on `topic`', topicAnd(Perm.PUB, undefined))],
  ...[RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ].map((code): [number, AclRule] => [
    code,
    rule(
      'SUB on the body’s consumer group and on each queue’s topic',
      (r, add) => {
        if (r.body === undefined || r.body.length === 0) return;
        const body = parseLockBatchBody(r.body);
        add(groupResource(body.consumerGroup), Perm.SUB);
        for (const mq of body.mqSet) add(mq.topic, Perm.SUB);
      },
      {
        stricter:
          "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could take or release another group's queue locks",
      },
    ),
  ]),
  [RequestCode.CHECK_CLIENT_CONFIG, rule(NONE, nothing)],
  ...[
    RequestCode.GET_MAX_OFFSET,
    RequestCode.GET_MIN_OFFSET,
    RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
    RequestCode.GET_EARLIEST_MSG_STORETIME,
    RequestCode.GET_TOPIC_STATS_INFO,
    RequestCode.GET_TOPIC_CONFIG,
    RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
  ].map((code): [number, AclRule] => [
    code,
    rule(ANY_TOPIC, topicAnd(Perm.ANY, undefined), { stricter: ANY_TOPIC_WHY }),
  ]),
  ...[
    RequestCode.UPDATE_AND_CREATE_TOPIC,
    RequestCode.UPDATE_BROKER_CONFIG,
    RequestCode.DELETE_TOPIC_IN_BROKER,
    RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
    RequestCode.DELETE_SUBSCRIPTIONGROUP,
  ].map((code): [number, AclRule] => [code, rule(ADMIN_ONLY, nothing, { admin: true })]),
  [
    RequestCode.GET_BROKER_CONFIG,
    rule('none; a non-admin account is shown only the settings clients read (the timer ones)', nothing, {
      stricter:
        'Java shows any account every setting of the broker, the ACL file path included; our producers need only the timer settings',
    }),
  ],
  // ACL 2.0 administration: the embedded broker keeps ACL 1.0 and answers these as unsupported
  // (processors/auth-admin.ts), but only to an admin, as a 5.x broker serves them only to one.
  ...[
    RequestCode.AUTH_CREATE_USER,
    RequestCode.AUTH_UPDATE_USER,
    RequestCode.AUTH_DELETE_USER,
    RequestCode.AUTH_GET_USER,
    RequestCode.AUTH_LIST_USER,
    RequestCode.AUTH_CREATE_ACL,
    RequestCode.AUTH_UPDATE_ACL,
    RequestCode.AUTH_DELETE_ACL,
    RequestCode.AUTH_GET_ACL,
    RequestCode.AUTH_LIST_ACL,
  ].map((code): [number, AclRule] => [code, rule(ADMIN_ONLY, nothing, { admin: true })]),
  [
    FAULT_INJECTION_REQUEST_CODE,
    rule(ADMIN_ONLY, nothing, {
      admin: true,
      stricter: 'ours only (no Java code): it makes the broker hang or fail the requests of every account',
    }),
  ],
  ...[
    RequestCode.GET_ALL_TOPIC_CONFIG,
    RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
    RequestCode.GET_BROKER_RUNTIME_INFO,
    RequestCode.GET_PRODUCER_CONNECTION_LIST,
  ].map((code): [number, AclRule] => [code, rule(NONE, nothing)]),
  ...[RequestCode.GET_CONSUMER_CONNECTION_LIST, RequestCode.GET_CONSUMER_RUNNING_INFO].map(
    (code): [number, AclRule] => [
      code,
      rule('PUB or SUB on group `consumerGroup`', groupOnly('consumerGroup', Perm.ANY), {
        stricter:
          "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could list another group's clients",
      }),
    ],
  ),
  [
    RequestCode.GET_CONSUME_STATS,
    rule(
      'PUB or SUB on group `consumerGroup` and on `topic` when given',
      topicAnd(Perm.ANY, 'consumerGroup', Perm.ANY),
      {
        stricter:
          "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could read another group's progress",
      },
    ),
  ],
  [
    RequestCode.CONSUME_MESSAGE_DIRECTLY,
    rule('SUB on group `consumerGroup`', groupOnly('consumerGroup', Perm.SUB), {
      stricter:
        "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could make another group's client consume a message",
    }),
  ],
  [
    RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
    rule('SUB on `topic` and on group `group`', topicAnd(Perm.SUB, 'group'), {
      stricter:
        "Java 4.9.7 checks nothing (5.5.0's ACL 2.0 does): any account could rewind or skip another group's offsets",
    }),
  ],
];

/** The broker's rules by request code. */
export const BROKER_ACL_RULES: ReadonlyMap<number, AclRule> = new Map(RULES);

/**
 * The NameServer's codes: it has no ACL (neither has Java's 4.9.7/5.5.0 NameServer, whose
 * clients sign requests it never checks), so each is served to anyone who can reach it; keep it
 * on loopback or behind TLS with client verification (docs/security.md §2.7).
 */
export const NAMESRV_UNCHECKED_CODES: ReadonlySet<number> = new Set([
  RequestCode.REGISTER_BROKER,
  RequestCode.UNREGISTER_BROKER,
  RequestCode.GET_ROUTEINFO_BY_TOPIC,
  RequestCode.GET_BROKER_CLUSTER_INFO,
  RequestCode.QUERY_DATA_VERSION,
  RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
  RequestCode.PUT_KV_CONFIG,
  RequestCode.GET_KV_CONFIG,
  RequestCode.DELETE_KV_CONFIG,
  RequestCode.GET_KVLIST_BY_NAMESPACE,
  RequestCode.DELETE_TOPIC_IN_NAMESRV,
  RequestCode.GET_TOPICS_BY_CLUSTER,
]);

/** A served code without a rule: only an admin may send it, until it gets one. */
export const UNLISTED_RULE: AclRule = rule('admin account (the code has no rule yet)', nothing, {
  admin: true,
});
