/**
 * Counters behind GET_BROKER_RUNTIME_INFO: messages put and got, with TPS over the last 10 s,
 * 1 min and 10 min (Java prints them space-separated, e.g. `putTps` = "12.0 10.5 3.2"), the
 * totals at the last two local midnights (Java `BrokerStats.record`), and where the latest put
 * landed (for QUERY_MESSAGE's index position).
 */
const WINDOWS_S = [10, 60, 600] as const;
const RESOLVED = Promise.resolve();

/** A consume queue that grew; `maxOffset` is its new max offset. */
export interface QueueArrival {
  topic: string;
  queueId: number;
  maxOffset: number;
}

export class BrokerStats {
  readonly bootTimestamp = Date.now();
  putTotal = 0;
  getTotal = 0;
  /** Totals at the last local midnight and the one before; 0 until a midnight passed (as Java). */
  putTotalTodayMorning = 0;
  getTotalTodayMorning = 0;
  putTotalYesterdayMorning = 0;
  getTotalYesterdayMorning = 0;
  /** One [put, get] sample per second, newest last, at most 601. */
  private readonly samples: Array<[number, number]> = [];
  private timer: NodeJS.Timeout | undefined;
  private day = localDay(Date.now());
  /**
   * Queues that grew in the latest store batch (all in the same tick); undefined until the first
   * put since start, meaning "look at every queue".
   */
  private tail: QueueArrival[] | undefined;
  private tailTick = 0;
  private tick = 0;
  private tickScheduled = false;
  private readonly endTick = (): void => {
    this.tickScheduled = false;
    this.tick++;
  };
  /**
   * Messages pulled per `topic@group` (Java GROUP_GET_NUMS) with one total per second, newest
   * last, at most 61: the minute TPS of GET_CONSUME_STATS. Idle keys are dropped after a minute.
   */
  private readonly groupGets = new Map<string, { total: number; samples: number[] }>();

  start(): void {
    this.samples.length = 0;
    this.samples.push([this.putTotal, this.getTotal]);
    this.timer = setInterval(() => this.sample(Date.now()), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One per-second sample; rolls the morning totals over when the local day changed. */
  sample(now: number): void {
    this.samples.push([this.putTotal, this.getTotal]);
    if (this.samples.length > 601) this.samples.shift();
    for (const [key, g] of this.groupGets) {
      g.samples.push(g.total);
      if (g.samples.length > 61) g.samples.shift();
      if (g.samples.length === 61 && g.samples[0] === g.total) this.groupGets.delete(key);
    }
    const day = localDay(now);
    if (day !== this.day) {
      this.day = day;
      this.putTotalYesterdayMorning = this.putTotalTodayMorning;
      this.getTotalYesterdayMorning = this.getTotalTodayMorning;
      this.putTotalTodayMorning = this.putTotal;
      this.getTotalTodayMorning = this.getTotal;
    }
  }

  /** A PULL of `group` returned `count` messages of `topic`. */
  noteGroupGet(topic: string, group: string, count: number): void {
    const key = `${topic}@${group}`;
    let g = this.groupGets.get(key);
    if (g === undefined) this.groupGets.set(key, (g = { total: 0, samples: [0] }));
    g.total += count;
  }

  /** Messages per second that `group` pulled from `topic` over the last minute (Java getStatsDataInMinute). */
  groupGetTps(topic: string, group: string): number {
    const g = this.groupGets.get(`${topic}@${group}`);
    if (g === undefined) return 0;
    const from = g.samples[0] ?? 0;
    return (g.total - from) / Math.max(1, g.samples.length - 1);
  }

  /** The store reported a put; the queues of one batch are reported within one tick. */
  noteArrival(topic: string, queueId: number, maxOffset: number): void {
    if (!this.tickScheduled) {
      this.tickScheduled = true;
      // A resolved promise's reaction, not queueMicrotask: the same microtask without the
      // AsyncResource Node builds for every queueMicrotask call (once per store append).
      void RESOLVED.then(this.endTick);
    }
    if (this.tail === undefined || this.tailTick !== this.tick) {
      this.tail = [];
      this.tailTick = this.tick;
    }
    this.tail.push({ topic, queueId, maxOffset });
  }

  /** Forgets the tail (the store was reopened). */
  resetTail(): void {
    this.tail = undefined;
  }

  /** Queues that grew in the latest batch, or undefined when nothing was put since start. */
  latestArrivals(): readonly QueueArrival[] | undefined {
    return this.tail;
  }

  private tps(index: 0 | 1): string {
    const now = index === 0 ? this.putTotal : this.getTotal;
    return WINDOWS_S.map((w) => {
      const from = this.samples[Math.max(0, this.samples.length - 1 - w)];
      const seconds = Math.min(w, Math.max(1, this.samples.length - 1));
      return from ? ((now - from[index]) / seconds).toFixed(2) : '0.00';
    }).join(' ');
  }

  putTps(): string {
    return this.tps(0);
  }

  getTps(): string {
    return this.tps(1);
  }
}

function localDay(ms: number): string {
  return new Date(ms).toDateString();
}
