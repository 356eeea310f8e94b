/**
 * Why a message was delivered more than once, in one pure function shared by the demo and the
 * chaos run: from the deliveries of one message (in arrival order) and what the run did to its
 * processes, one cause per extra delivery.
 */

/** One delivery of a message to a consumer group member. */
export interface Delivery {
  member: number;
  /** Which start of that member (0 = first; a restart is a new incarnation). */
  incarnation: number;
  /** `brokerName/queueId`. */
  queue: string;
  reconsumeTimes: number;
  /** Consume-queue offset, when reported: tells two stored copies in one queue apart. */
  queueOffset?: number;
}

export const DUPLICATE_CAUSES = [
  'a resend after an ambiguous send timeout stored it twice',
  'a hedged send stored it twice',
  'in flight or uncommitted when a consumer was killed',
  'consumer retry (handler failed)',
  'a queue moved to another member before its offset was committed (rebalance)',
  'redelivered to the same member (broker restart or offset not yet persisted)',
] as const;

export type DuplicateCause = (typeof DUPLICATE_CAUSES)[number];

export interface DuplicateContext {
  /** `${member}/${incarnation}` of every SIGKILLed consumer incarnation. */
  readonly killed: ReadonlySet<string>;
  /** The producer reported this message as a hedged duplicate (stored on two brokers). */
  readonly hedged?: boolean;
}

/** A zero count for every cause. */
export function emptyCauseCounts(): Record<DuplicateCause, number> {
  return Object.fromEntries(DUPLICATE_CAUSES.map((c) => [c, 0])) as Record<DuplicateCause, number>;
}

/**
 * One cause per extra delivery in `list` (so `list.length - 1` of them). Each stored copy beyond
 * the first came from the producer (a hedge when it said so, else a resend after a timeout whose
 * first attempt was stored after all). A copy delivered again: with reconsumeTimes > 0 a handler
 * failed; after an incarnation that was later SIGKILLed, its offset was not committed; after
 * another member, its queue moved; else the same member got it again (the broker's committed
 * offset went back: a broker restart, or not yet persisted).
 */
export function explainDuplicates(list: readonly Delivery[], ctx: DuplicateContext): DuplicateCause[] {
  const causes: DuplicateCause[] = [];
  const lastOfCopy = new Map<string, Delivery>();
  for (const d of list) {
    const copy = d.queueOffset === undefined ? d.queue : `${d.queue}@${d.queueOffset}`;
    const prev = lastOfCopy.get(copy);
    lastOfCopy.set(copy, d);
    if (prev === undefined) {
      if (lastOfCopy.size > 1)
        causes.push(
          ctx.hedged
            ? 'a hedged send stored it twice'
            : 'a resend after an ambiguous send timeout stored it twice',
        );
      continue;
    }
    if (d.reconsumeTimes > prev.reconsumeTimes) causes.push('consumer retry (handler failed)');
    else if (ctx.killed.has(`${prev.member}/${prev.incarnation}`))
      causes.push('in flight or uncommitted when a consumer was killed');
    else if (prev.member !== d.member || prev.incarnation !== d.incarnation)
      causes.push('a queue moved to another member before its offset was committed (rebalance)');
    else causes.push('redelivered to the same member (broker restart or offset not yet persisted)');
  }
  return causes;
}
