/**
 * [5.x] Recall on the embedded broker (docs/protocol.md §13.4), as Java's
 * `RecallMessageProcessor` + `TimerMessageStore`: a recall is a marker message put through the
 * timer path like any timer message — tag `_RECALL_TAG_`, TIMER_DEL_UNIQKEY = the recalled
 * message's UNIQ_KEY, due at the handle's time (the recalled message's TIMER_OUT_MS + 1) — so it
 * lands in the wheel queue after the message it cancels and is due just after it. The wheel
 * queue is durable and rescanned from its checkpoint at a restart, so the markers of every
 * undelivered timer come back with it. While a marker waits, the timer service drops the message
 * it names when that one falls due; the marker itself is never delivered.
 *
 * Java matches a marker to messages of the same wheel slot by UNIQ_KEY alone (topic appended only
 * with `appendTopicForTimerDeleteKey`); here it matches UNIQ_KEY and real topic, so a recall can
 * only ever cancel the message of its own topic.
 */
import { PropertyKey } from '../../protocol/message/properties.js';

/** Java `RecallMessageProcessor.RECALL_MESSAGE_TAG`. */
export const RECALL_TAG = '_RECALL_TAG_';

function keyOf(realTopic: string, uniqKey: string): string {
  return `${realTopic}\u0000${uniqKey}`;
}

/** The markers waiting in the wheel, by (real topic, recalled UNIQ_KEY), with a count each (a message may be recalled twice). */
export class RecallMarkers {
  private readonly waiting = new Map<string, number>();

  /** The key of a wheel message that is a marker; undefined for any other message. */
  static markerKey(props: Readonly<Record<string, string>>): string | undefined {
    const target = props[PropertyKey.TIMER_DEL_UNIQKEY];
    if (target === undefined) return undefined;
    return keyOf(props[PropertyKey.REAL_TOPIC] ?? '', target);
  }

  /** Markers waiting (for stats and tests). */
  get size(): number {
    return this.waiting.size;
  }

  add(key: string): void {
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
  }

  /** The marker fell due: the message it names has had its time. */
  remove(key: string): void {
    const n = this.waiting.get(key) ?? 0;
    if (n <= 1) this.waiting.delete(key);
    else this.waiting.set(key, n - 1);
  }

  /** Whether a due wheel message (its properties) has been recalled. */
  recalled(props: Readonly<Record<string, string>>): boolean {
    const uniq = props[PropertyKey.UNIQ_KEY];
    return uniq !== undefined && this.waiting.has(keyOf(props[PropertyKey.REAL_TOPIC] ?? '', uniq));
  }
}
