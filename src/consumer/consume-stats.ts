/** Handler outcomes per topic since start, for GET_CONSUMER_RUNNING_INFO's statusTable (Java `ConsumeStatus`). */
import type { ConsumeStatusData } from '../protocol/body/consumer-running-info.js';

export class ConsumeStats {
  private readonly byTopic = new Map<string, { ok: number; failed: number; rtSum: number; calls: number }>();
  private readonly since = Date.now();

  record(topic: string, count: number, ok: boolean, rtMs: number): void {
    let s = this.byTopic.get(topic);
    if (s === undefined) this.byTopic.set(topic, (s = { ok: 0, failed: 0, rtSum: 0, calls: 0 }));
    if (ok) s.ok += count;
    else s.failed += count;
    s.rtSum += rtMs;
    s.calls++;
  }

  /** Averages since start (pull figures are not kept). */
  status(topic: string, now = Date.now()): ConsumeStatusData {
    const s = this.byTopic.get(topic) ?? { ok: 0, failed: 0, rtSum: 0, calls: 0 };
    const seconds = Math.max(1, (now - this.since) / 1000);
    return {
      pullRT: 0,
      pullTPS: 0,
      consumeRT: s.calls === 0 ? 0 : s.rtSum / s.calls,
      consumeOKTPS: s.ok / seconds,
      consumeFailedTPS: s.failed / seconds,
      consumeFailedMsgs: s.failed,
    };
  }
}
