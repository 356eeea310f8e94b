/**
 * The periodic route refresh, spread out: each pass refreshes every topic in use once per
 * `pollNameServerInterval`, topic i at `passStart + i × interval / n`, one request at a time.
 * A client with 1,000 topics thus asks the NameServer about one topic every 30 ms instead of
 * 1,000 at once every 30 s. Urgent refreshes (a group lost its master: master-watch.ts) go
 * through the same lane ahead of the scheduled ones, so the NameServer still sees at most one
 * request in flight from this client. A pass that falls behind (slow NameServer) delays the next
 * one instead of overlapping it.
 */
import type { Logger } from '../observability/logger.js';
import { Deadline, type Clock } from './deadline.js';

/** What the pacer needs of the route cache (route-lookup.ts). */
export interface PacedRoutes {
  /** Starts a pass: evicts idle topics and returns the topics to refresh. */
  beginPass(): string[];
  /** Ends a pass: forgets brokers no route names any more. */
  endPass(): void;
  /** Refreshes one topic; never rejects. */
  refreshTopic(topic: string, deadline: Deadline): Promise<boolean>;
}

export interface RoutePacerConfig {
  pollNameServerInterval: number;
  /** Budget of one request (ms). */
  mqClientApiTimeout: number;
  logger: Logger;
  /** @default Date.now */
  clock?: Clock | undefined;
}

interface Waiter {
  pending: Set<string>;
  resolve: () => void;
}

export class RoutePacer {
  private readonly clock: Clock;
  /** Topics of the current pass not refreshed yet, in order. */
  private pass: string[] = [];
  private passIndex = 0;
  private passStart = 0;
  private spacing = 0;
  private nextPassAt = 0;
  private readonly urgentTopics = new Set<string>();
  private readonly waiters: Waiter[] = [];
  private busy = false;
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private passes = 0;

  constructor(
    private readonly routes: PacedRoutes,
    private readonly config: RoutePacerConfig,
  ) {
    this.clock = config.clock ?? Date.now;
  }

  /** Starts pacing; the first pass begins one interval from now (as Java's timer). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.nextPassAt = this.clock() + this.config.pollNameServerInterval;
    this.arm(this.config.pollNameServerInterval);
  }

  /** Passes completed so far (diagnostics, tests). */
  get completedPasses(): number {
    return this.passes;
  }

  /**
   * Refreshes `topics` ahead of the scheduled ones; resolves when each was tried once (each
   * request fails or succeeds on its own; this never rejects). Resolves at once when stopped.
   */
  urgent(topics: readonly string[]): Promise<void> {
    if (!this.running || topics.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      for (const t of topics) this.urgentTopics.add(t);
      this.waiters.push({ pending: new Set(topics), resolve });
      void this.pump();
    });
  }

  stop(): void {
    this.running = false;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    this.pass = [];
    this.urgentTopics.clear();
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  private arm(ms: number): void {
    if (!this.running) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        void this.pump();
      },
      Math.max(0, ms),
    );
    this.timer.unref();
  }

  private settle(topic: string): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i] as Waiter;
      w.pending.delete(topic);
      if (w.pending.size === 0) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  private beginPass(now: number): void {
    this.pass = this.routes.beginPass();
    this.passIndex = 0;
    this.passStart = now;
    const interval = this.config.pollNameServerInterval;
    this.spacing = interval / Math.max(1, this.pass.length);
    this.nextPassAt = now + interval;
  }

  private endPass(): void {
    this.routes.endPass();
    this.passes++;
  }

  /** The one loop that sends requests: urgent topics first, then the pass's topics when due. */
  private async pump(): Promise<void> {
    if (this.busy || !this.running) return;
    this.busy = true;
    try {
      while (this.running) {
        const urgent = this.urgentTopics.values().next();
        if (urgent.done !== true) {
          const topic = urgent.value;
          this.urgentTopics.delete(topic);
          await this.routes.refreshTopic(topic, this.deadline());
          this.settle(topic);
          continue;
        }
        const now = this.clock();
        if (this.pass.length === 0) {
          if (now < this.nextPassAt) {
            this.arm(this.nextPassAt - now);
            return;
          }
          this.beginPass(now);
          if (this.pass.length === 0) {
            this.endPass();
            continue;
          }
        }
        const due = this.passStart + this.passIndex * this.spacing;
        if (now < due) {
          this.arm(due - now);
          return;
        }
        const topic = this.pass.shift() as string;
        this.passIndex++;
        await this.routes.refreshTopic(topic, this.deadline());
        if (this.pass.length === 0) this.endPass();
      }
    } catch (err) {
      // refreshTopic never rejects; anything else is a bug worth a log line, not a dead loop.
      this.config.logger.error('route refresh loop failed', { error: (err as Error).message });
      this.arm(this.config.pollNameServerInterval);
    } finally {
      this.busy = false;
    }
  }

  private deadline(): Deadline {
    return Deadline.after(this.config.mqClientApiTimeout, this.clock);
  }
}
