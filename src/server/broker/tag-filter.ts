/**
 * Tag subscriptions (`*`, `TagA || TagB`) and the broker-side filter: like Java, messages are
 * matched by tagsCode = `String.hashCode()` of TAGS; the client re-checks the tag text.
 */

/** Java `String.hashCode()` over UTF-16 code units, as a signed int32. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

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
