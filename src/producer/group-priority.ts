/**
 * [5.x] The two message fields that decide a message's queue: `messageGroup` (FIFO, property
 * `__SHARDINGKEY`, docs/protocol.md §13.3) and `priority` (property `_SYS_MSG_PRIORITY_`). Their
 * rules are those of Java 5: a group is what the 5.x Proxy accepts from its own clients (not
 * blank, no ISO control character, under `maxMessageGroupSize` = 64 UTF-8 bytes), a priority is
 * `Message.setPriority`'s (a Java int ≥ 0), and a message is one type only — a group or a
 * priority never goes with a delay, a timer, a transaction or each other. The per-send
 * `shardingKey` option is the same group, so it follows the same rules.
 */
import { InvalidArgumentError } from '../errors.js';
import { checkInt } from '../options.js';
import { MAX_PRIORITY } from '../protocol/message/priority.js';
import type { Message } from './message.js';

/** The 5.x Proxy's `maxMessageGroupSize`: a group must be shorter than this many UTF-8 bytes. */
export const MESSAGE_GROUP_MAX_BYTES = 64;

/** Java's `Character.isISOControl`: U+0000–U+001F and U+007F–U+009F. */
// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Validates a message group (`messageGroup` or the `shardingKey` option, named by `field`). */
export function checkMessageGroup(value: unknown, field: string): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  if (value.trim().length === 0) throw new InvalidArgumentError(field, 'must not be empty or blank');
  if (CONTROL.test(value)) throw new InvalidArgumentError(field, 'must not contain a control character');
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes >= MESSAGE_GROUP_MAX_BYTES) {
    throw new InvalidArgumentError(
      field,
      `is ${bytes} UTF-8 bytes; a message group must be shorter than ${MESSAGE_GROUP_MAX_BYTES}`,
    );
  }
  return value;
}

export function checkPriority(value: unknown, field: string): number {
  return checkInt(field, value, 0, MAX_PRIORITY);
}

/** The delay or timer field `msg` sets, if any. */
function delayField(msg: Message): string | undefined {
  if (msg.delayTimeLevel !== undefined && msg.delayTimeLevel !== 0) return 'delayTimeLevel';
  if (msg.deliverAt !== undefined) return 'deliverAt';
  if (msg.deliverAfterMs !== undefined) return 'deliverAfterMs';
  return undefined;
}

/**
 * Throws when `msg` combines a group (`group` names where it came from: `messageGroup` or the
 * `shardingKey` option) or a priority with another message type; `prefix` places it in a batch.
 */
export function checkOneMessageType(
  msg: Message,
  group: 'messageGroup' | 'shardingKey' | undefined,
  prefix = '',
): void {
  const hasPriority = msg.priority !== undefined;
  if (group === undefined && !hasPriority) return;
  const first = group ?? 'priority';
  if (group !== undefined && hasPriority)
    throw new InvalidArgumentError(`${prefix}priority`, `cannot be combined with ${group}`);
  const delay = delayField(msg);
  if (delay !== undefined)
    throw new InvalidArgumentError(`${prefix}${delay}`, `cannot be combined with ${first}`);
}

/** A transaction's half message carries no group and no priority (Java 5's builder rule). */
export function checkNotInTransaction(msg: Message): void {
  if (msg.messageGroup !== undefined)
    throw new InvalidArgumentError('messageGroup', 'cannot be combined with a transaction');
  if (msg.priority !== undefined)
    throw new InvalidArgumentError('priority', 'cannot be combined with a transaction');
}
