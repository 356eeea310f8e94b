/**
 * The broker's ACL check, Java `PlainAccessValidator` + `PlainPermissionManager#validate`
 * (docs/security.md §2.3–§2.5), run as a server RPC hook before any processor: a refused
 * request never reaches a processor, so it changes no state. Refusals answer NO_PERMISSION (the
 * 5.x code; 4.9 used SYSTEM_ERROR) with Java's reason as the remark.
 *
 * Clock-independent, as Java: ACL 1.0 signs no timestamp, so a captured request can be replayed
 * for as long as the account exists; there is no replay window to configure.
 */
import { AccessDeniedError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { ACCESS_KEY, verifySignature } from '../../protocol/acl.js';
import { RequestCode, ResponseCode } from '../../protocol/codes.js';
import type { RemotingCommand } from '../../protocol/command.js';
import { parseHeartbeatData } from '../../protocol/headers/heartbeat.js';
import type { RpcHook } from '../../remoting/hooks.js';
import { RETRY_PREFIX, type CompiledAccount, type CompiledAcl } from './acl-config.js';
import { ADMIN_CODES, checkPermission, Perm } from './permission.js';
import { hostOf } from './remote-address.js';

const TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';

/** Thrown inside the check; the hook turns it into the refusal. */
class Refusal extends Error {
  constructor(
    readonly reason: string,
    readonly accessKey: string,
    readonly resource?: string,
    readonly permission?: string,
  ) {
    super(reason);
  }
}

const retryTopic = (group: string | undefined): string | undefined =>
  group === undefined ? undefined : RETRY_PREFIX + group;

/** What a request needs (Java `PlainAccessValidator#parse`, plus the 5.x POP and transaction codes). */
export function neededResources(request: RemotingCommand): Map<string, number> {
  const ext = request.extFields ?? {};
  const need = new Map<string, number>();
  const add = (resource: string | undefined, perm: number): void => {
    if (resource !== undefined && resource !== '') need.set(resource, perm);
  };
  const sendTo = (topic: string | undefined, group: string | undefined): void => {
    // A send to a retry topic is a consumer sending back: it needs SUB on its group.
    if (topic?.startsWith(RETRY_PREFIX)) add(retryTopic(group), Perm.SUB);
    else add(topic, Perm.PUB);
  };
  switch (request.code) {
    case RequestCode.SEND_MESSAGE:
      sendTo(ext['topic'], ext['group'] ?? ext['producerGroup']);
      break;
    case RequestCode.SEND_MESSAGE_V2:
      sendTo(ext['b'], ext['a']);
      break;
    case RequestCode.CONSUMER_SEND_MSG_BACK:
      add(retryTopic(ext['group']), Perm.SUB);
      break;
    case RequestCode.PULL_MESSAGE:
    case RequestCode.LITE_PULL_MESSAGE:
    case RequestCode.POP_MESSAGE:
    case RequestCode.PEEK_MESSAGE:
    case RequestCode.ACK_MESSAGE:
    case RequestCode.CHANGE_MESSAGE_INVISIBLETIME:
    case RequestCode.UPDATE_CONSUMER_OFFSET:
      add(ext['topic'], Perm.SUB);
      add(retryTopic(ext['consumerGroup']), Perm.SUB);
      break;
    case RequestCode.QUERY_MESSAGE:
      add(ext['topic'], Perm.SUB);
      break;
    case RequestCode.END_TRANSACTION:
      // [5.x] the header carries the topic; 4.9's has none and needs no resource.
      add(ext['topic'], Perm.PUB);
      break;
    case RequestCode.UNREGISTER_CLIENT:
    case RequestCode.GET_CONSUMER_LIST_BY_GROUP:
      add(retryTopic(ext['consumerGroup']), Perm.SUB);
      break;
    case RequestCode.HEART_BEAT: {
      if (request.body === undefined || request.body.length === 0) break;
      const data = parseHeartbeatData(request.body);
      for (const c of data.consumerDataSet) {
        add(retryTopic(c.groupName), Perm.SUB);
        for (const s of c.subscriptionDataSet) add(s.topic, Perm.SUB);
      }
      break;
    }
    default:
      break;
  }
  return need;
}

function describe(resource: string): string {
  return resource.startsWith(RETRY_PREFIX)
    ? `group:${resource.slice(RETRY_PREFIX.length)}`
    : `topic:${resource}`;
}

function permName(perm: number): string {
  return perm === Perm.PUB ? 'PUB' : perm === Perm.SUB ? 'SUB' : 'ANY';
}

function checkPerms(request: RemotingCommand, account: CompiledAccount, need: Map<string, number>): void {
  if (ADMIN_CODES.has(request.code) && !account.admin)
    throw new Refusal(
      `Need admin permission for request code=${request.code}, but accessKey=${account.accessKey} is not`,
      account.accessKey,
      `code=${request.code}`,
      'ADMIN',
    );
  for (const [resource, needed] of need) {
    const isGroup = resource.startsWith(RETRY_PREFIX);
    const owned =
      account.perms.get(resource) ?? (isGroup ? account.defaultGroupPerm : account.defaultTopicPerm);
    if (!checkPermission(needed, owned))
      throw new Refusal(
        `No default permission for ${describe(resource)}`,
        account.accessKey,
        describe(resource),
        permName(needed),
      );
  }
}

/**
 * Throws Refusal when `request` from `remoteAddress` may not proceed. Order as Java's
 * `validate`: global white list, AccessKey present, account known, account white list,
 * signature, trace-topic skip, admin flag, permissions.
 */
export function validateRequest(acl: CompiledAcl, request: RemotingCommand, remoteAddress: string): void {
  const host = hostOf(remoteAddress);
  if (acl.globalWhite.some((m) => m(host))) return;
  const accessKey = request.extFields?.[ACCESS_KEY];
  if (accessKey === undefined || accessKey === '') throw new Refusal('No accessKey is configured', '');
  const account = acl.accounts.get(accessKey);
  if (account === undefined) throw new Refusal(`No acl config for ${accessKey}`, accessKey);
  if (account.white(host)) return;
  if (!verifySignature(request, account.secretKey))
    throw new Refusal(`Check signature failed for accessKey=${accessKey}`, accessKey);
  let need: Map<string, number>;
  try {
    need = neededResources(request);
  } catch (err) {
    // Java wraps a parse failure (e.g. a malformed heartbeat body) in AclException.
    throw new Refusal(err instanceof Error ? err.message : String(err), accessKey);
  }
  if (need.get(TRACE_TOPIC) === Perm.PUB) return;
  checkPerms(request, account, need);
}

/**
 * The server hook: refuses with AccessDeniedError (NO_PERMISSION; RemotingServer answers it), and
 * logs each account's reason once, so a misconfigured client cannot flood the log.
 */
export function aclServerHook(current: () => CompiledAcl | undefined, logger: Logger): RpcHook {
  const logged = new Set<string>();
  return {
    beforeRequest(address, request) {
      const acl = current();
      if (acl === undefined) return;
      try {
        validateRequest(acl, request, address);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        const key = `${err.accessKey}\u0000${err.reason}`;
        if (!logged.has(key) && logged.size < 10000) {
          logged.add(key);
          logger.warn('ACL refused a request', {
            accessKey: err.accessKey,
            reason: err.reason,
            code: request.code,
            address,
          });
        }
        throw new AccessDeniedError(ResponseCode.NO_PERMISSION, err.reason, {
          resource: err.resource,
          permission: err.permission,
          address,
        });
      }
    },
  };
}
