/**
 * Pull and handler figures per topic since start, for GET_CONSUMER_RUNNING_INFO's statusTable
 * (Java `ConsumeStatus`; Java averages the last minute, these average the consumer's lifetime).
 * A pull's round trip includes the broker's long-poll hold, as Java's pullRT does.
 */
import type { ConsumeStatusData } from '../../protocol/body/consumer-running-info.js';
import { PullMessage } from '../../protocol/headers/pull.js';
import type { ConsumerClient } from './client-port.js';

interface TopicFigures {
  ok: number;
  failed: number;
  rtSum: number;
  calls: number;
  pulled: number;
  pullRtSum: number;
  pulls: number;
}

export class ConsumeStats {
  private readonly byTopic = new Map<string, TopicFigures>();
  private readonly since = Date.now();

  private figures(topic: string): TopicFigures {
    let s = this.byTopic.get(topic);
    if (s === undefined)
      this.byTopic.set(
        topic,
        (s = { ok: 0, failed: 0, rtSum: 0, calls: 0, pulled: 0, pullRtSum: 0, pulls: 0 }),
      );
    return s;
  }

  /** A handler call on `count` messages finished. */
  record(topic: string, count: number, ok: boolean, rtMs: number): void {
    const s = this.figures(topic);
    if (ok) s.ok += count;
    else s.failed += count;
    s.rtSum += rtMs;
    s.calls++;
  }

  /** A pull round trip of `rtMs` answered (any status). */
  recordPull(topic: string, rtMs: number): void {
    const s = this.figures(topic);
    s.pullRtSum += rtMs;
    s.pulls++;
  }

  /** `count` messages pulled and kept (after the tag re-check), Java's incPullTPS. */
  recordPulled(topic: string, count: number): void {
    this.figures(topic).pulled += count;
  }

  /** Averages since start. */
  status(topic: string, now = Date.now()): ConsumeStatusData {
    const s = this.byTopic.get(topic);
    const seconds = Math.max(1, (now - this.since) / 1000);
    if (s === undefined)
      return {
        pullRT: 0,
        pullTPS: 0,
        consumeRT: 0,
        consumeOKTPS: 0,
        consumeFailedTPS: 0,
        consumeFailedMsgs: 0,
      };
    return {
      pullRT: s.pulls === 0 ? 0 : s.pullRtSum / s.pulls,
      pullTPS: s.pulled / seconds,
      consumeRT: s.calls === 0 ? 0 : s.rtSum / s.calls,
      consumeOKTPS: s.ok / seconds,
      consumeFailedTPS: s.failed / seconds,
      consumeFailedMsgs: s.failed,
    };
  }
}

/** The pull loops' client: PULL_MESSAGE round trips are timed into `stats` (pullRT). */
export function timedPulls(client: ConsumerClient, stats: ConsumeStats): ConsumerClient {
  return {
    ...client,
    request: (address, cmd, timeoutMs, signal) => {
      if (cmd.code !== PullMessage.code) return client.request(address, cmd, timeoutMs, signal);
      const started = Date.now();
      return client.request(address, cmd, timeoutMs).then((response) => {
        stats.recordPull(cmd.extFields?.['topic'] ?? '', Date.now() - started);
        return response;
      });
    },
  };
}
