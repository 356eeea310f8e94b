/**
 * The broker's message filter for one pull (Java `ExpressionMessageFilter`): a TAG subscription
 * is checked on the consume-queue entry's tagsCode; a SQL92 selector is evaluated on the stored
 * message's properties (TAGS included, as property `TAGS`).
 */
import { FilterExpressionError } from '../../errors.js';
import { compileSql92, type Sql92Expression } from '../../protocol/filter/sql92.js';
import { ExpressionType } from '../../protocol/headers/heartbeat.js';
import {
  buildTagSubscription,
  isTagType,
  matchesTagsCode,
  SUBSCRIBE_ALL,
  type TagSubscription,
} from '../../protocol/filter/tags.js';
import { decodeProperties } from '../../protocol/message/properties.js';
import { decodeStoredMessage } from '../../protocol/message/stored-message.js';

export type MessageFilter =
  | { readonly type: 'TAG'; readonly tags: TagSubscription }
  | { readonly type: 'SQL92'; readonly sql: Sql92Expression };

export const MATCH_ALL: MessageFilter = Object.freeze({ type: 'TAG', tags: SUBSCRIBE_ALL });

/** Java `SelectorParser.PARSE_CACHE`: clients that post their subscription send it with every pull. */
const PARSE_CACHE_SIZE = 100;
const parseCache = new Map<string, Sql92Expression | FilterExpressionError>();

function compileCached(expression: string): Sql92Expression {
  let entry = parseCache.get(expression);
  if (entry === undefined) {
    try {
      entry = compileSql92(expression);
    } catch (err) {
      if (!(err instanceof FilterExpressionError)) throw err;
      entry = err;
    }
    if (parseCache.size >= PARSE_CACHE_SIZE) parseCache.delete(parseCache.keys().next().value as string);
    parseCache.set(expression, entry);
  }
  if (entry instanceof FilterExpressionError) throw entry;
  return entry;
}

/**
 * Java `FilterAPI.build` + `ConsumerFilterManager.build`: the filter of a subscription. Throws
 * FilterExpressionError for a bad SQL92 expression or an expression type the broker does not know.
 */
export function buildMessageFilter(
  expressionType: string | undefined,
  subString: string | undefined,
): MessageFilter {
  if (isTagType(expressionType)) return { type: 'TAG', tags: buildTagSubscription(subString) };
  if (expressionType === ExpressionType.SQL92) return { type: 'SQL92', sql: compileCached(subString ?? '') };
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
