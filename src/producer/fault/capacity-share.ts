/**
 * Load that follows capacity, for the adaptive strategy: which broker each send goes to when
 * several may take it.
 * - Least outstanding requests: among the admissible brokers, those with the fewest attempts in
 *   flight per writable queue get the send (ties: round robin over their queues). A broker that
 *   answers in 200 ms holds its sends 100 times longer than one answering in 2 ms, so it ends
 *   up with about 1/100 of the concurrent callers instead of half of them.
 * - A floor: a broker that is answering (not isolated, its oldest send in flight not stalled)
 *   and whose recent share of the sends fell below `minShare × 1/n` (n brokers in the topic's
 *   route) gets the next send, whatever its latency. Consumers of a slow group thus still see
 *   its queues fill, and the strategy keeps measuring it. A broker that stopped answering gets
 *   no floor (it would hold callers until their timeout).
 * The recent share is a count of selections that decays by `1 / SHARE_WINDOW` per selection,
 * so it reflects about the last few hundred sends.
 */

/** Selections a recent share reflects (the decay of each count per selection is 1/SHARE_WINDOW). */
export const SHARE_WINDOW = 256;

/** Default floor: each answering broker gets at least this fraction of its fair share (1/n). */
export const DEFAULT_MIN_SHARE = 0.2;

/** A broker whose oldest send in flight is older than this many times its usual latency is stalled. */
export const STALL_FACTOR = 4;

/** One broker's decaying count, updated in place (a Map of numbers allocates a number per update). */
interface Count {
  value: number;
}

export class ShareTracker {
  private readonly counts = new Map<string, Count>();
  /** Sum of the counts (kept with the same decay). */
  private total = 0;

  /** Counts one selection of `brokerName`; every count decays a little. */
  note(brokerName: string): void {
    const keep = 1 - 1 / SHARE_WINDOW;
    for (const c of this.counts.values()) c.value *= keep;
    this.total = this.total * keep + 1;
    const c = this.counts.get(brokerName);
    if (c === undefined) this.counts.set(brokerName, { value: 1 });
    else c.value += 1;
  }

  /** Recent share of `brokerName` among `names` (0..1); undefined before any selection among them. */
  shareAmong(brokerName: string, names: readonly string[]): number | undefined {
    let sum = 0;
    for (const n of names) sum += this.counts.get(n)?.value ?? 0;
    if (sum === 0) return undefined;
    return (this.counts.get(brokerName)?.value ?? 0) / sum;
  }

  /** Recent share of every broker over all selections (brokerHealth's `weight`). */
  weight(brokerName: string): number {
    return this.total === 0 ? 0 : (this.counts.get(brokerName)?.value ?? 0) / this.total;
  }

  forget(brokerName: string): void {
    const c = this.counts.get(brokerName);
    if (c === undefined) return;
    this.total -= c.value;
    this.counts.delete(brokerName);
  }
}

/**
 * Index in `names` of the answering broker furthest below its floor, or -1 when none is below.
 * `eligible(b)` says whether broker index b is answering and not excluded.
 */
export function belowFloor(
  tracker: ShareTracker,
  names: readonly string[],
  minShare: number,
  eligible: (b: number) => boolean,
): number {
  if (names.length < 2 || minShare <= 0) return -1;
  const floor = minShare / names.length;
  let worst = -1;
  let worstShare = floor;
  for (let b = 0; b < names.length; b++) {
    if (!eligible(b)) continue;
    const share = tracker.shareAmong(names[b] as string, names);
    // Before the first selections every share is 0: no floor yet, least outstanding decides.
    if (share === undefined) return -1;
    if (share < worstShare) {
      worst = b;
      worstShare = share;
    }
  }
  return worst;
}
