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
import { ResponseCode } from '../../protocol/codes.js';
import type { RemotingCommand } from '../../protocol/command.js';
import type { RpcHook } from '../../remoting/hooks.js';
import { RETRY_PREFIX, type CompiledAccount, type CompiledAcl } from './acl-config.js';
import { checkPermission, Perm } from './permission.js';
import { BROKER_ACL_RULES, UNLISTED_RULE, type AclRule } from './request-rules.js';
import { fieldsMisfit } from './signed-fields.js';
import { hostOf } from './remote-address.js';

const TRACE_TOPIC = 'RMQ_SYS_TRACE_TOPIC';

/** Thrown inside the check; the hook turns it into the refusal. */
class Refusal extends Error {
  constructor(
    readonly reason: string,
    /** What the log may show of the account: its accessKey, or a mask when unknown. */
    readonly loggedKey: string,
    readonly resource?: string,
    readonly permission?: string,
    /** The log's reason when `reason` quotes what the client sent as its accessKey. */
    readonly loggedReason: string = reason,
  ) {
    super(reason);
  }
}

/**
 * An accessKey that matches no account may be a secret (a client with the two keys swapped):
 * the log gets its length only, never its text.
 */
function maskUnknownKey(key: string): string {
  return `<unknown, ${key.length} chars>`;
}

/** The rule of `code` (a served code without one is admin-only). */
export function ruleOf(code: number): AclRule {
  return BROKER_ACL_RULES.get(code) ?? UNLISTED_RULE;
}

/** What a request needs (request-rules.ts: Java `PlainAccessValidator#parse`, stricter where noted). */
export function neededResources(request: RemotingCommand): Map<string, number> {
  return ruleOf(request.code).needs(request);
}

function describe(resource: string): string {
  return resource.startsWith(RETRY_PREFIX)
    ? `group:${resource.slice(RETRY_PREFIX.length)}`
    : `topic:${resource}`;
}

function permName(perm: number): string {
  return perm === Perm.PUB ? 'PUB' : perm === Perm.SUB ? 'SUB' : 'ANY';
}

function owns(account: CompiledAccount, resource: string, needed: number): boolean {
  const isGroup = resource.startsWith(RETRY_PREFIX);
  const owned =
    account.perms.get(resource) ?? (isGroup ? account.defaultGroupPerm : account.defaultTopicPerm);
  return checkPermission(needed, owned);
}

function checkPerms(request: RemotingCommand, account: CompiledAccount, need: Map<string, number>): void {
  if (ruleOf(request.code).admin && !account.admin)
    throw new Refusal(
      `Need admin permission for request code=${request.code}, but accessKey=${account.accessKey} is not`,
      account.accessKey,
      `code=${request.code}`,
      'ADMIN',
    );
  for (const [resource, needed] of need) {
    if (!owns(account, resource, needed))
      throw new Refusal(
        `No default permission for ${describe(resource)}`,
        account.accessKey,
        describe(resource),
        permName(needed),
      );
  }
}

/**
 * Throws Refusal when `request` from `remoteAddress` may not proceed; returns the account it
 * was checked as, or null when a white list let it through. Order as Java's `validate`: global
 * white list, AccessKey present, account known, account white list, signature, then ours: the
 * fields fit the code's declaration (signed-fields.ts); then trace-topic skip, admin flag,
 * permissions.
 */
export function validateRequest(
  acl: CompiledAcl,
  request: RemotingCommand,
  remoteAddress: string,
  served: (code: number) => boolean = () => true,
): CompiledAccount | null {
  const host = hostOf(remoteAddress);
  if (acl.globalWhite.some((m) => m(host))) return null;
  const accessKey = request.extFields?.[ACCESS_KEY];
  if (accessKey === undefined || accessKey === '') throw new Refusal('No accessKey is configured', '');
  const account = acl.accounts.get(accessKey);
  if (account === undefined) {
    const masked = maskUnknownKey(accessKey);
    throw new Refusal(
      `No acl config for ${accessKey}`,
      masked,
      undefined,
      undefined,
      `No acl config for ${masked}`,
    );
  }
  if (account.white(host)) return null;
  if (!verifySignature(request, account.secretKey))
    throw new Refusal(`Check signature failed for accessKey=${accessKey}`, accessKey);
  // A code nothing serves is answered REQUEST_CODE_NOT_SUPPORTED and changes nothing; Java
  // clients probe some (5.x features on a 4.9-style broker), so only the signature counts.
  if (!served(request.code)) return account;
  const misfit = fieldsMisfit(request);
  if (misfit !== undefined) throw new Refusal(misfit, accessKey);
  let need: Map<string, number>;
  try {
    need = neededResources(request);
  } catch (err) {
    // Java wraps a parse failure (e.g. a malformed heartbeat body) in AclException.
    throw new Refusal(
      `ACL check cannot read the request: ${err instanceof Error ? err.message : String(err)}`,
      accessKey,
    );
  }
  if (need.get(TRACE_TOPIC) === Perm.PUB) return account;
  checkPerms(request, account, need);
  return account;
}

/**
 * The broker's ACL gate: the server hook that refuses with AccessDeniedError (NO_PERMISSION;
 * RemotingServer answers it), logging each account's reason once so a misconfigured client
 * cannot flood the log; and the check a processor makes on what it looked up (VIEW_MESSAGE_BY_ID:
 * the stored message's topic), as the account the hook checked the request as.
 */
export class AclGate {
  /** Requests that passed the hook: the account, or null when white-listed. */
  private readonly passed = new WeakMap<RemotingCommand, CompiledAccount | null>();
  private readonly logged = new Set<string>();

  constructor(
    private readonly current: () => CompiledAcl | undefined,
    private readonly logger: Logger,
    /** Whether the server has a processor for a code. */
    private readonly served: (code: number) => boolean,
  ) {}

  readonly hook: RpcHook = {
    beforeRequest: (address, request) => {
      const acl = this.current();
      if (acl === undefined) return;
      try {
        this.passed.set(request, validateRequest(acl, request, address, this.served));
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        this.log(err, request.code, address);
        throw new AccessDeniedError(ResponseCode.NO_PERMISSION, err.reason, {
          resource: err.resource,
          permission: err.permission,
          address,
        });
      }
    },
  };

  /**
   * Whether the account `request` passed the hook as holds `perm` on `resource` (a topic or
   * `%RETRY%group`); true when ACL is off or a white list let the request in. A request the hook
   * never saw while ACL is on is refused (fail closed).
   */
  allows(request: RemotingCommand, resource: string, perm: number, address = ''): boolean {
    if (this.current() === undefined) return true;
    const account = this.passed.get(request);
    if (account === null) return true;
    if (account !== undefined && owns(account, resource, perm)) return true;
    const key = account?.accessKey ?? '';
    this.log(
      new Refusal(`No ${permName(perm)} permission on ${describe(resource)}`, key),
      request.code,
      address,
    );
    return false;
  }

  /** Whether `request` passed the hook as an admin account (or white-listed, or ACL is off). */
  isAdmin(request: RemotingCommand): boolean {
    if (this.current() === undefined) return true;
    const account = this.passed.get(request);
    return account === null || account?.admin === true;
  }

  private log(err: Refusal, code: number, address: string): void {
    const key = `${err.loggedKey}\u0000${err.loggedReason}`;
    if (this.logged.has(key) || this.logged.size >= 10000) return;
    this.logged.add(key);
    this.logger.warn('ACL refused a request', {
      accessKey: err.loggedKey,
      reason: err.loggedReason,
      code,
      address,
    });
  }
}
