/**
 * Counters behind GET_BROKER_RUNTIME_INFO: messages put and got, with TPS over the last 10 s,
 * 1 min and 10 min (Java prints them space-separated, e.g. `putTps` = "12.0 10.5 3.2").
 */
const WINDOWS_S = [10, 60, 600] as const;

export class BrokerStats {
  readonly bootTimestamp = Date.now();
  putTotal = 0;
  getTotal = 0;
  /** One [put, get] sample per second, newest last, at most 601. */
  private readonly samples: Array<[number, number]> = [];
  private timer: NodeJS.Timeout | undefined;

  start(): void {
    this.samples.length = 0;
    this.samples.push([this.putTotal, this.getTotal]);
    this.timer = setInterval(() => {
      this.samples.push([this.putTotal, this.getTotal]);
      if (this.samples.length > 601) this.samples.shift();
    }, 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
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
