/**
 * Tag subscriptions (`*`, `TagA || TagB`) and the broker-side filter: like Java, messages are
 * matched by tagsCode = `String.hashCode()` of TAGS; the client re-checks the tag text.
 */

import { javaStringHashCode } from '../../protocol/java-string-hash.js';

export { javaStringHashCode };

export interface Subscription {
  /** `*` or empty: everything matches. */
  all: boolean;
  tags: ReadonlySet<string>;
  codes: ReadonlySet<number>;
}

export const SUBSCRIBE_ALL: Subscription = Object.freeze({
  all: true,
  tags: new Set<string>(),
  codes: new Set<number>(),
});

/** Java `FilterAPI.buildSubscriptionData` for TAG expressions. */
export function parseSubscription(expression: string | undefined): Subscription {
  if (expression === undefined) return SUBSCRIBE_ALL;
  const trimmed = expression.trim();
  if (trimmed === '' || trimmed === '*') return SUBSCRIBE_ALL;
  const tags = new Set<string>();
  for (const part of trimmed.split('||')) {
    const tag = part.trim();
    if (tag !== '') tags.add(tag);
  }
  if (tags.size === 0) return SUBSCRIBE_ALL;
  return { all: false, tags, codes: new Set([...tags].map(javaStringHashCode)) };
}

export function matchesTagsCode(sub: Subscription, tagsCode: number): boolean {
  return sub.all || sub.codes.has(tagsCode);
}
