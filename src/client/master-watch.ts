/**
 * Fast re-routing on master loss. When a request to a broker group's master fails as
 * unreachable (refused, closed), the route of a topic on that group is refreshed at once and
 * then about every `intervalMs` (with jitter, one request in flight), until the group has a
 * master again: at another address (a DLedger group elected a new leader), or at any address
 * after the group had none or had left the route (restarted in place); then every topic on the
 * group is refreshed at once. The watch also ends when the old address answers again, and gives
 * up after `maxMs`; the periodic refresh (route-pacer.ts) carries on from there. One topic per
 * round suffices: the NameServer lists the same broker data in every route of the group, so a
 * client with a thousand topics on it does not ask about all of them every second. Without this
 * a producer waits for the next periodic refresh (30 s by default) to reach a new master.
 */
import type { Logger } from '../observability/logger.js';
import type { Clock } from './deadline.js';

/** What the watch reads of the route cache (route-lookup.ts). */
export interface WatchedRoutes {
  topicsOnBroker(brokerName: string): string[];
  masterAddress(brokerName: string): string | undefined;
  /** Master of `brokerName` in the current route of `topic` (undefined: none, or not in it). */
  masterInRoute(topic: string, brokerName: string): string | undefined;
  brokerTable(): ReadonlyMap<string, ReadonlyMap<number, string>>;
}

export interface MasterWatchConfig {
  /** Period of the refresh rounds while a group has no reachable master (ms). @default 1000 */
  intervalMs?: number;
  /** Each period is `intervalMs × (1 ± jitter)`, so clients do not ask in lockstep. @default 0.2 */
  jitter?: number;
  /** A watch ends after this long even without a new master (ms). @default 60000 */
  maxMs?: number;
  logger: Logger;
  /** @default Date.now */
  clock?: Clock | undefined;
  /** @default Math.random */
  random?: (() => number) | undefined;
}

export const MASTER_WATCH_DEFAULTS = Object.freeze({ intervalMs: 1000, jitter: 0.2, maxMs: 60_000 });

/** Why a watch ended. */
export type MasterWatchEnd = 'new-master' | 'no-topics' | 'answered' | 'gave-up' | 'stopped';

interface Watch {
  brokerName: string;
  /** The master address that failed. */
  lost: string;
  since: number;
  rounds: number;
  /** Topics on the group when the watch began; one is asked about per round. */
  topics: string[];
  /** True once a round saw the group without a master (or out of the route). */
  sawNoMaster: boolean;
  timer: NodeJS.Timeout | undefined;
}

export class MasterWatch {
  private readonly watches = new Map<string, Watch>();
  private readonly intervalMs: number;
  private readonly jitter: number;
  private readonly maxMs: number;
  private readonly clock: Clock;
  private readonly random: () => number;
  private stopped = false;
  /** Called when a watch ends (tests, diagnostics). */
  onEnd: ((brokerName: string, why: MasterWatchEnd, rounds: number) => void) | undefined;

  constructor(
    private readonly routes: WatchedRoutes,
    /** Refreshes the routes of `topics`; resolves when each was tried once, never rejects. */
    private readonly refresh: (topics: readonly string[]) => Promise<void>,
    private readonly config: MasterWatchConfig,
  ) {
    this.intervalMs = config.intervalMs ?? MASTER_WATCH_DEFAULTS.intervalMs;
    this.jitter = config.jitter ?? MASTER_WATCH_DEFAULTS.jitter;
    this.maxMs = config.maxMs ?? MASTER_WATCH_DEFAULTS.maxMs;
    this.clock = config.clock ?? Date.now;
    this.random = config.random ?? Math.random;
  }

  /** Whether any group is being watched (a cheap check for the request path). */
  get active(): boolean {
    return this.watches.size > 0;
  }

  /** Broker names being watched. */
  watching(): string[] {
    return [...this.watches.keys()];
  }

  /**
   * A request to `address` failed as unreachable: if it is a group's master, start watching
   * that group (once; a watch in progress is not restarted).
   */
  masterUnreachable(address: string): void {
    if (this.stopped) return;
    const brokerName = this.groupMasteredAt(address);
    if (brokerName === undefined || this.watches.has(brokerName)) return;
    const w: Watch = {
      brokerName,
      lost: address,
      since: this.clock(),
      rounds: 0,
      topics: this.routes.topicsOnBroker(brokerName),
      sawNoMaster: false,
      timer: undefined,
    };
    this.watches.set(brokerName, w);
    this.config.logger.warn('broker master unreachable; refreshing its routes until a master is back', {
      brokerName,
      address,
    });
    void this.round(w);
  }

  /** A request to `address` succeeded: a watch on the group it masters ends (restarted in place). */
  answered(address: string): void {
    for (const w of this.watches.values()) if (w.lost === address) this.end(w, 'answered');
  }

  stop(): void {
    this.stopped = true;
    for (const w of [...this.watches.values()]) this.end(w, 'stopped');
  }

  private groupMasteredAt(address: string): string | undefined {
    for (const [name, ids] of this.routes.brokerTable()) if (ids.get(0) === address) return name;
    return undefined;
  }

  /** Why the watch of `w` can end now, if it can. */
  private settled(w: Watch, topic: string): MasterWatchEnd | undefined {
    const master = this.routes.masterInRoute(topic, w.brokerName);
    if (master === undefined) w.sawNoMaster = true;
    else if (master !== w.lost || w.sawNoMaster) return 'new-master';
    if (this.clock() - w.since >= this.maxMs) return 'gave-up';
    return undefined;
  }

  private async round(w: Watch): Promise<void> {
    w.timer = undefined;
    if (this.watches.get(w.brokerName) !== w) return;
    if (w.topics.length === 0) {
      this.end(w, 'no-topics');
      return;
    }
    const topic = w.topics[w.rounds % w.topics.length] as string;
    w.rounds++;
    await this.refresh([topic]);
    if (this.watches.get(w.brokerName) !== w) return;
    const why = this.settled(w, topic);
    if (why !== undefined) {
      this.end(w, why);
      // The new master is in one topic's route: bring every other topic on the group up to date.
      if (why === 'new-master') void this.refresh(w.topics.filter((t) => t !== topic));
      return;
    }
    const period = this.intervalMs * (1 + this.jitter * (2 * this.random() - 1));
    w.timer = setTimeout(() => void this.round(w), Math.max(1, period));
    w.timer.unref();
  }

  private end(w: Watch, why: MasterWatchEnd): void {
    if (this.watches.get(w.brokerName) !== w) return;
    this.watches.delete(w.brokerName);
    if (w.timer !== undefined) clearTimeout(w.timer);
    w.timer = undefined;
    const meta = {
      brokerName: w.brokerName,
      why,
      rounds: w.rounds,
      afterMs: this.clock() - w.since,
      master: this.routes.masterAddress(w.brokerName),
    };
    if (why === 'gave-up') this.config.logger.warn('no new master; back to the periodic route refresh', meta);
    else this.config.logger.info('master watch ended', meta);
    this.onEnd?.(w.brokerName, why, w.rounds);
  }
}
