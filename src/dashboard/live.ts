/**
 * Live updates: one shared poller per live view (the cluster, a topic, a group, the producers),
 * fanned out to every Server-Sent Events subscriber of that view. However many tabs show a
 * view, a refresh runs its `poll` once (at most one admin request per broker for that view); a
 * view with no subscriber is not polled at all, and its poller stops with its last tab. The number
 * of distinct views polled at once is capped (`maxPolledViews`): streams for made-up names cannot
 * multiply the pollers.
 */

import { IllegalStateError } from '../errors.js';

/** A page region replaced in place: element id → escaped markup. */
export type Fragments = Record<string, string>;

export interface LiveView {
  /** Fetches fresh data (recording chart history) and renders the live regions. */
  poll(): Promise<Fragments>;
}

interface Entry {
  view: LiveView;
  subscribers: Set<(f: Fragments) => void>;
  timer: NodeJS.Timeout | undefined;
  polling: boolean;
  lastUsed: number;
}

/** Views kept without a subscriber (their chart history), oldest dropped first. */
const MAX_IDLE_VIEWS = 64;

export class LiveHub {
  private readonly entries = new Map<string, Entry>();
  private closed = false;
  /** Polls run so far, per view key (tests and the footer). */
  readonly pollCounts = new Map<string, number>();

  constructor(
    private readonly refreshMs: number,
    private readonly onPollError: (key: string, err: unknown) => Fragments,
    /** Distinct views polled at once (each polls the cluster); subscribing to one more is refused. */
    readonly maxPolledViews = Infinity,
  ) {}

  /** Views with at least one subscriber, i.e. polled. */
  get polledViews(): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.subscribers.size > 0) n++;
    return n;
  }

  /** True when a subscriber of `key` shares a poller already running, or a new one fits the cap. */
  canSubscribe(key: string): boolean {
    return this.subscriberCount(key) > 0 || this.polledViews < this.maxPolledViews;
  }

  /** The view for `key`, made by `create` when absent; kept so its chart history survives reloads. */
  view<V extends LiveView>(key: string, create: () => V): V {
    let e = this.entries.get(key);
    if (!e) {
      this.dropIdle();
      e = { view: create(), subscribers: new Set(), timer: undefined, polling: false, lastUsed: Date.now() };
      this.entries.set(key, e);
    }
    e.lastUsed = Date.now();
    return e.view as V;
  }

  /**
   * Starts `send`ing the view's updates; returns the unsubscribe function. Callers check
   * `canSubscribe` first: past `maxPolledViews` this throws.
   */
  subscribe(key: string, create: () => LiveView, send: (f: Fragments) => void): () => void {
    if (!this.canSubscribe(key))
      throw new IllegalStateError(
        `live view ${key} refused: ${this.maxPolledViews} views are polled already`,
      );
    this.view(key, create);
    const e = this.entries.get(key)!;
    e.subscribers.add(send);
    if (e.subscribers.size === 1 && !this.closed) this.schedule(key, e);
    return () => {
      e.subscribers.delete(send);
      e.lastUsed = Date.now();
      if (e.subscribers.size === 0 && e.timer) {
        clearTimeout(e.timer);
        e.timer = undefined;
      }
    };
  }

  subscriberCount(key: string): number {
    return this.entries.get(key)?.subscribers.size ?? 0;
  }

  /** True while some view has a poll scheduled or running. */
  get polling(): boolean {
    return [...this.entries.values()].some((e) => e.timer !== undefined || e.polling);
  }

  close(): void {
    this.closed = true;
    for (const e of this.entries.values()) {
      if (e.timer) clearTimeout(e.timer);
      e.timer = undefined;
      e.subscribers.clear();
    }
  }

  // The next poll is scheduled when the previous one ended, so a slow broker never stacks polls.
  private schedule(key: string, e: Entry): void {
    e.timer = setTimeout(() => {
      e.timer = undefined;
      void this.tick(key, e);
    }, this.refreshMs);
  }

  private async tick(key: string, e: Entry): Promise<void> {
    if (e.subscribers.size === 0 || this.closed) return;
    e.polling = true;
    let fragments: Fragments;
    try {
      fragments = await e.view.poll();
    } catch (err) {
      fragments = this.onPollError(key, err);
    } finally {
      e.polling = false;
    }
    this.pollCounts.set(key, (this.pollCounts.get(key) ?? 0) + 1);
    for (const send of e.subscribers) send(fragments);
    if (e.subscribers.size > 0 && !this.closed && e.timer === undefined) this.schedule(key, e);
  }

  private dropIdle(): void {
    if (this.entries.size < MAX_IDLE_VIEWS) return;
    const idle = [...this.entries].filter(([, e]) => e.subscribers.size === 0 && !e.polling);
    idle.sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [key] of idle.slice(0, Math.max(1, idle.length - MAX_IDLE_VIEWS / 2)))
      this.entries.delete(key);
  }
}

/** A ring of chart points per series name, x = seconds since the view was made. */
export class History {
  private readonly t0 = Date.now();
  private readonly series = new Map<string, Array<[number, number]>>();

  constructor(private readonly max: number) {}

  add(name: string, y: number, now = Date.now()): void {
    let points = this.series.get(name);
    if (!points) this.series.set(name, (points = []));
    points.push([(now - this.t0) / 1000, y]);
    if (points.length > this.max) points.splice(0, points.length - this.max);
  }

  points(name: string): Array<[number, number]> {
    return this.series.get(name) ?? [];
  }

  names(): string[] {
    return [...this.series.keys()];
  }

  /** The x axis starts at the oldest point kept, so a long-lived view's chart scrolls. */
  shifted(name: string): Array<[number, number]> {
    const x0 = this.origin();
    return this.points(name).map(([x, y]) => [x - x0, y]);
  }

  /** `at` (epoch ms) on the shifted x axis, in seconds. */
  xOf(at: number): number {
    return (at - this.t0) / 1000 - this.origin();
  }

  private origin(): number {
    let x0 = Infinity;
    for (const points of this.series.values()) if (points[0] && points[0][0] < x0) x0 = points[0][0];
    return Number.isFinite(x0) ? x0 : 0;
  }
}
