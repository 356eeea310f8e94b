/**
 * Subscription expressions shared by the consumer (heartbeat SubscriptionData) and the broker
 * (pull filter). TAG expressions follow Java `FilterAPI.buildSubscriptionData`: `*`, empty or
 * absent subscribes to everything; otherwise split on `||`, trim, drop empty parts; codeSet holds
 * each tag's Java `String.hashCode`, which is what the consume queue stores as tagsCode. The broker
 * matches by code only; the client re-checks the tag text (docs/consumers.md §1.9).
 */
import { ExpressionType, SUB_ALL } from '../headers/heartbeat.js';
import { javaStringHashCode } from '../java-string-hash.js';

/** Java `ExpressionType.isTagType`: absent, empty or `TAG`. */
export function isTagType(expressionType: string | undefined | null): boolean {
  return (
    expressionType === undefined ||
    expressionType === null ||
    expressionType === '' ||
    expressionType === ExpressionType.TAG
  );
}

export interface TagSubscription {
  /** `*` or empty: everything matches. */
  readonly all: boolean;
  /** Java tagsSet, in expression order. */
  readonly tags: ReadonlySet<string>;
  /** Java codeSet: `String.hashCode` of each tag. */
  readonly codes: ReadonlySet<number>;
}

export const SUBSCRIBE_ALL: TagSubscription = Object.freeze({
  all: true,
  tags: new Set<string>(),
  codes: new Set<number>(),
});

/** Java `FilterAPI.buildSubscriptionData` for a TAG expression. */
export function buildTagSubscription(expression: string | undefined | null): TagSubscription {
  if (expression === undefined || expression === null) return SUBSCRIBE_ALL;
  const trimmed = expression.trim();
  if (trimmed === '' || trimmed === SUB_ALL) return SUBSCRIBE_ALL;
  const tags = new Set<string>();
  for (const part of trimmed.split('||')) {
    const tag = part.trim();
    if (tag !== '') tags.add(tag);
  }
  if (tags.size === 0) return SUBSCRIBE_ALL;
  return { all: false, tags, codes: new Set([...tags].map(javaStringHashCode)) };
}

/** The broker's check of a consume-queue entry's tagsCode. */
export function matchesTagsCode(sub: TagSubscription, tagsCode: number): boolean {
  return sub.all || sub.codes.has(tagsCode);
}

/** The client's re-check of the TAGS text (`PullAPIWrapper#processPullResult`; no TAGS → dropped). */
export function matchesTagText(sub: TagSubscription, tags: string | undefined): boolean {
  return sub.all || (tags !== undefined && sub.tags.has(tags));
}
