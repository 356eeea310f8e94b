/**
 * What a consumer subscribes to: Java `FilterAPI.buildSubscriptionData` (docs/protocol.md §8) for
 * `*`, `TagA || TagB` and `{ sql }` expressions, validated up front so a bad expression fails at
 * `subscribe()`, not on the first pull.
 */
import { InvalidArgumentError } from '../../errors.js';
import { compileSql92 } from '../../protocol/filter/sql92.js';
import { buildTagSubscription } from '../../protocol/filter/tags.js';
import { ExpressionType, SUB_ALL, type SubscriptionData } from '../../protocol/headers/heartbeat.js';

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

/** Same filter (used to warn when members of a group disagree, docs/consumers.md §1.10). */
export function sameFilter(a: SubscriptionData, b: SubscriptionData): boolean {
  return a.expressionType === b.expressionType && a.subString.trim() === b.subString.trim();
}

/** group → topic → subscriptions of the consumers of this process (docs/consumers.md §1.10). */
const groupSubscriptions = new Map<string, Map<string, Set<SubscriptionData>>>();

/**
 * Records a consumer's subscription of its group; returns another member's subscription of the
 * topic when it filters differently (the broker keeps one per group: the last heartbeat wins).
 */
export function noteGroupSubscription(group: string, data: SubscriptionData): SubscriptionData | undefined {
  let topics = groupSubscriptions.get(group);
  if (topics === undefined) groupSubscriptions.set(group, (topics = new Map()));
  let members = topics.get(data.topic);
  if (members === undefined) topics.set(data.topic, (members = new Set()));
  const other = [...members].find((m) => !sameFilter(m, data));
  members.add(data);
  return other;
}

/** A consumer shut down or re-subscribed: these subscriptions no longer count. */
export function forgetGroupSubscriptions(group: string, datas: readonly SubscriptionData[]): void {
  const topics = groupSubscriptions.get(group);
  if (topics === undefined) return;
  for (const d of datas) {
    const members = topics.get(d.topic);
    members?.delete(d);
    if (members?.size === 0) topics.delete(d.topic);
  }
  if (topics.size === 0) groupSubscriptions.delete(group);
}
