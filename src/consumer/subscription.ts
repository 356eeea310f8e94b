/**
 * What a consumer subscribes to: Java `FilterAPI.buildSubscriptionData` (consumer.md §1.5) for
 * `*`, `TagA || TagB` and `{ sql }` expressions, validated up front so a bad expression fails at
 * `subscribe()`, not on the first pull.
 */
import { InvalidArgumentError } from '../errors.js';
import { compileSql92 } from '../protocol/filter/sql92.js';
import { buildTagSubscription, ExpressionType, SUB_ALL } from '../protocol/filter/tags.js';
import type { SubscriptionData } from '../protocol/headers/heartbeat.js';

/** `'*'`, a tag expression (`'TagA || TagB'`) or an SQL92 selector. */
export type SubscriptionExpression = string | { sql: string };

/** Builds the SubscriptionData sent in heartbeats (and pulls with postSubscriptionWhenPull). */
export function buildSubscriptionData(
  topic: string,
  expression: SubscriptionExpression,
  subVersion: number = Date.now(),
): SubscriptionData {
  if (typeof expression === 'object' && expression !== null) {
    const sql = (expression as { sql?: unknown }).sql;
    if (typeof sql !== 'string' || sql.trim() === '')
      throw new InvalidArgumentError('expression', '{ sql } must hold a non-empty SQL92 expression');
    compileSql92(sql); // a bad selector fails here, not on every pull
    return {
      topic,
      subString: sql,
      tagsSet: [],
      codeSet: [],
      subVersion,
      expressionType: ExpressionType.SQL92,
      classFilterMode: false,
    };
  }
  if (typeof expression !== 'string')
    throw new InvalidArgumentError('expression', "must be '*', a tag expression or { sql }");
  const sub = buildTagSubscription(expression);
  for (const tag of sub.tags)
    if (tag === SUB_ALL || /[\s|]/.test(tag))
      throw new InvalidArgumentError('expression', `not a tag expression: ${expression}`);
  return {
    topic,
    subString: sub.all ? SUB_ALL : expression,
    tagsSet: [...sub.tags],
    codeSet: [...sub.codes],
    subVersion,
    expressionType: ExpressionType.TAG,
    classFilterMode: false,
  };
}

/** Same filter (used to warn when members of a group disagree, consumer.md §4). */
export function sameFilter(a: SubscriptionData, b: SubscriptionData): boolean {
  return a.expressionType === b.expressionType && a.subString.trim() === b.subString.trim();
}
