/**
 * The broker option `enableTopicMessageTypeCheck` (docs/protocol.md §13.2): the 5.x Proxy's rule,
 * here in the broker so tests cover it without Java. A message's type comes from its properties
 * (`messageTypeOf`), the topic's from its `message.type` attribute (NORMAL when absent); a
 * mismatch is MESSAGE_ILLEGAL with the Proxy's remark. The send processor calls this only when
 * the option is on, so the send path pays nothing for it otherwise.
 */
import { decodeBatch } from '../../protocol/message/batch.js';
import {
  DEFAULT_TOPIC_MESSAGE_TYPE,
  isTopicMessageType,
  MESSAGE_TYPE_ATTRIBUTE,
  messageTypeAccepted,
  messageTypeMismatchRemark,
  messageTypeOf,
  type TopicMessageType,
} from '../../protocol/message/message-type.js';
import { decodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import type { TopicConfig } from '../../protocol/headers/register.js';
import { DLQ_GROUP_TOPIC_PREFIX, RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';

/** The topic's `message.type` (an unknown value counts as UNSPECIFIED, which accepts nothing). */
export function topicMessageType(config: TopicConfig): TopicMessageType {
  const value = config.attributes?.[MESSAGE_TYPE_ATTRIBUTE];
  if (value === undefined) return DEFAULT_TOPIC_MESSAGE_TYPE;
  return isTopicMessageType(value) ? value : 'UNSPECIFIED';
}

/** The remark for the first message `config`'s topic refuses, or undefined when all are accepted. */
function refusal(expected: TopicMessageType, properties: string): string | undefined {
  const props = decodeProperties(properties);
  // Like the Proxy, a message another broker transferred (TRANSFER_FLAG) is not checked again.
  if (props[PropertyKey.TRANSFER_FLAG] !== undefined) return undefined;
  const actual = messageTypeOf((name) => props[name]);
  return messageTypeAccepted(expected, actual) ? undefined : messageTypeMismatchRemark(expected, actual);
}

/**
 * MESSAGE_ILLEGAL's remark when the send must be refused, else undefined. A batch is checked
 * message by message (its body's records; the Proxy looks at the first only, but a batch of
 * mixed types would be stored half wrong). A malformed batch body is left to the send path.
 */
export function messageTypeRefusal(
  config: TopicConfig,
  properties: string | undefined,
  batchBody: Uint8Array | undefined,
): string | undefined {
  const topic = config.topicName;
  if (topic.startsWith(RETRY_GROUP_TOPIC_PREFIX) || topic.startsWith(DLQ_GROUP_TOPIC_PREFIX))
    return undefined;
  const expected = topicMessageType(config);
  if (expected === 'MIXED') return undefined;
  if (batchBody === undefined) return refusal(expected, properties ?? '');
  let entries;
  try {
    entries = decodeBatch(batchBody);
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const remark = refusal(expected, entry.properties);
    if (remark !== undefined) return remark;
  }
  return undefined;
}
