/**
 * The broker's message filter for one pull (Java `ExpressionMessageFilter`): a TAG subscription
 * is checked on the consume-queue entry's tagsCode; a SQL92 selector is evaluated on the stored
 * message's properties (TAGS included, as property `TAGS`).
 */
import { compileSql92, type Sql92Expression } from '../../protocol/filter/sql92.js';
import {
  buildTagSubscription,
  ExpressionType,
  isTagType,
  matchesTagsCode,
  SUBSCRIBE_ALL,
  type TagSubscription,
} from '../../protocol/filter/tags.js';
import { FilterExpressionError } from '../../protocol/filter/sql92.js';
import { decodeProperties } from '../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../protocol/message/stored-message.js';

export type MessageFilter =
  | { readonly type: 'TAG'; readonly tags: TagSubscription }
  | { readonly type: 'SQL92'; readonly sql: Sql92Expression };

export const MATCH_ALL: MessageFilter = Object.freeze({ type: 'TAG', tags: SUBSCRIBE_ALL });

/**
 * Java `FilterAPI.build` + `ConsumerFilterManager.build`: the filter of a subscription. Throws
 * FilterExpressionError for a bad SQL92 expression or an expression type the broker does not know.
 */
export function buildMessageFilter(
  expressionType: string | undefined,
  subString: string | undefined,
): MessageFilter {
  if (isTagType(expressionType)) return { type: 'TAG', tags: buildTagSubscription(subString) };
  if (expressionType === ExpressionType.SQL92) return { type: 'SQL92', sql: compileSql92(subString ?? '') };
  throw new FilterExpressionError(subString ?? '', `unknown expression type ${String(expressionType)}`);
}

/** First stage, on the consume-queue entry (SQL92 passes; the record decides). */
export function matchesQueueEntry(filter: MessageFilter, tagsCode: number): boolean {
  return filter.type === 'SQL92' || matchesTagsCode(filter.tags, tagsCode);
}

/** Second stage, on the stored record: SQL92 reads its properties; a record that does not decode never matches. */
export function matchesStoredRecord(filter: MessageFilter, record: Buffer): boolean {
  if (filter.type === 'TAG') return true;
  let properties: Record<string, string>;
  try {
    properties = decodeProperties(decodeStoredMessage(record).message.properties);
  } catch {
    return false;
  }
  return filter.sql.matches((name) => (Object.hasOwn(properties, name) ? properties[name] : undefined));
}
