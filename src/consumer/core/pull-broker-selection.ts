/**
 * Which member of a broker group a queue is pulled from (docs/consumers.md §1.3; Java
 * `PullAPIWrapper.updatePullFromWhichNode` / `recalculatePullFromWhichNode` and
 * `MQClientInstance.findBrokerAddressInSubscribe`): the brokerId the broker suggested in the last
 * pull response (`suggestWhichBrokerId`: a slave when the consumer lags far behind the master's
 * memory, the master again once it caught up), else the master.
 *
 * Deviation from Java, so a dead member does not stall its queues until the next route refresh:
 * an address whose pull failed (connection refused or closed, timeout) is skipped for
 * `avoidMs` while another member of the group is known — a failed slave sends the queue back to
 * the master at once, a failed master lets the queue read from a slave meanwhile (the broker
 * serves it when `slaveReadEnable` is on). Offsets and orderly locks never come here: they always
 * go to the master (offset-store/remote-broker.ts, broker-queries.ts).
 */
import type { Clock } from '../../client/deadline.js';

/** Java `MixAll.MASTER_ID`. */
const MASTER_ID = 0;

/** Where one pull goes. */
export interface PullTarget {
  readonly brokerName: string;
  readonly address: string;
  readonly brokerId: number;
  /** Not the master: the pull must not carry a commit offset (Java `clearCommitOffsetFlag`). */
  readonly slave: boolean;
}

/** brokerId → address of a group's members, from the routes in use; undefined when unknown. */
export type GroupMembers = (brokerName: string) => ReadonlyMap<number, string> | undefined;

/** How long an address whose pull failed is skipped while another member can serve (ms). */
export const UNREACHABLE_AVOID_MS = 5000;

export class PullBrokerSelection {
  /** Queue key → brokerId the broker last suggested (absent = master). */
  private readonly suggested = new Map<string, number>();
  /** Address → until when it is skipped. */
  private readonly avoidUntil = new Map<string, number>();

  constructor(
    private readonly members: GroupMembers,
    private readonly avoidMs = UNREACHABLE_AVOID_MS,
    private readonly clock: Clock = Date.now,
  ) {}

  /**
   * The member to pull queue `key` of `brokerName` from: the suggested brokerId, else the
   * master, else any other member (lowest id first), skipping avoided addresses unless every
   * known member is avoided. Undefined when the group has no known address.
   */
  target(key: string, brokerName: string): PullTarget | undefined {
    const ids = this.members(brokerName);
    if (ids === undefined || ids.size === 0) return undefined;
    const want = this.suggested.get(key) ?? MASTER_ID;
    const order = [want, ...(want === MASTER_ID ? [] : [MASTER_ID])];
    for (const id of [...ids.keys()].sort((a, b) => a - b)) if (!order.includes(id)) order.push(id);
    const now = this.clock();
    let fallback: PullTarget | undefined;
    for (const id of order) {
      const address = ids.get(id);
      if (address === undefined) continue;
      const t: PullTarget = { brokerName, address, brokerId: id, slave: id !== MASTER_ID };
      if ((this.avoidUntil.get(address) ?? 0) <= now) return t;
      fallback ??= t;
    }
    return fallback;
  }

  /**
   * The pull response's `suggestWhichBrokerId` (Java `updatePullFromWhichNode`). True when the
   * suggestion cannot be followed: the next pull would go back to `from`, the member that just
   * sent the queue elsewhere (a lagging slave says "master" while the master is avoided). The
   * caller then waits before pulling again instead of asking `from` in a tight loop.
   */
  suggest(key: string, brokerId: number, from?: PullTarget): boolean {
    if (brokerId === MASTER_ID) this.suggested.delete(key);
    else this.suggested.set(key, brokerId);
    if (from === undefined || brokerId === from.brokerId) return false;
    return this.target(key, from.brokerName)?.address === from.address;
  }

  /** `target` answered: it is reachable again. */
  answered(target: PullTarget): void {
    if (this.avoidUntil.size > 0) this.avoidUntil.delete(target.address);
  }

  /**
   * The pull to `target` failed (no connection, closed, timed out): skip its address for a while
   * and, from a slave, go back to the master. True when another member of the group can be tried
   * right away (the caller need not wait before the next pull).
   */
  failed(key: string, brokerName: string, target: PullTarget): boolean {
    this.avoidUntil.set(target.address, this.clock() + this.avoidMs);
    if (target.slave) this.suggested.delete(key);
    const next = this.target(key, brokerName);
    return (
      next !== undefined &&
      next.address !== target.address &&
      (this.avoidUntil.get(next.address) ?? 0) <= this.clock()
    );
  }

  /** The queue is no longer held. */
  forget(key: string): void {
    this.suggested.delete(key);
  }
}
