/** Fixed-size latency histogram for benchmarks: 1 µs buckets up to 100 ms, no per-sample memory. */
export class MicrosecondHistogram {
  private readonly buckets = new Uint32Array(100_000);
  private total = 0;

  record(us: number): void {
    const i = Math.min(this.buckets.length - 1, Math.max(0, Math.floor(us)));
    this.buckets[i] = (this.buckets[i] ?? 0) + 1;
    this.total++;
  }

  get count(): number {
    return this.total;
  }

  /** Value (µs) at percentile `p` (0..100), nearest rank. */
  percentile(p: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil((p / 100) * this.total);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i] ?? 0;
      if (seen >= rank) return i;
    }
    return this.buckets.length - 1;
  }
}
