/**
 * `for await (const message of simpleConsumer)` and `simpleConsumer.messages(options)`: receive
 * a batch, yield its messages one by one, and ack each one when the loop asks for the next,
 * unless the loop body acked it or changed its invisible duration itself. The acks are not awaited
 * one by one: they are sent while the loop goes on (the consumer's acker merges them into
 * BATCH_ACKs) and all of a batch are settled before the next receive and when the loop ends. When the body throws
 * or breaks, the message it was working on is not acked (it comes back after its invisible
 * time, as a message a handler failed on should), and the messages of the batch not yielded yet
 * go back to the consumer for its next `receive` (they are still invisible to the others). The
 * loop ends when the consumer shuts down; an aborted `signal` ends it with AbortError, as
 * `events.on` does. The same shape as LitePullConsumer's iterator (poll → yield, until shutdown).
 */
import { InvalidArgumentError } from '../../errors.js';
import type { Logger } from '../../observability/logger.js';
import { keyList, rejectUnknownKeys } from '../../options.js';
import { signalOf, type CallOptions } from '../../remoting/abort.js';
import type { PoppedMessage } from './pop-response.js';

/** Options of `SimpleConsumer.messages()`. */
export interface SimpleConsumerMessagesOptions extends CallOptions {
  /** Messages asked for per receive (1–32). @default 16 */
  maxMessages?: number | undefined;
  /** Invisible time of the received messages, ms. @default the consumer's `invisibleDuration` */
  invisibleDurationMs?: number | undefined;
}

const MESSAGES_OPTION_NAMES = keyList<SimpleConsumerMessagesOptions>({
  maxMessages: true,
  invisibleDurationMs: true,
  signal: true,
});

/** Messages asked for per receive by the iterator when `maxMessages` is not given. */
export const ITERATOR_MAX_MESSAGES = 16;

/** What the iterator needs of its consumer. */
export interface IteratedConsumer {
  running(): boolean;
  readonly logger: Logger;
  receive(
    maxMessages: number,
    invisibleDurationMs: number | undefined,
    options: CallOptions,
  ): Promise<PoppedMessage[]>;
  ack(message: PoppedMessage): Promise<void>;
  /** Whether `message` was acked or had its invisible duration changed (then the loop leaves it alone). */
  settledByCaller(message: PoppedMessage): boolean;
  /** Messages received and not handed out: kept for the next receive. */
  giveBack(messages: readonly PoppedMessage[]): void;
}

/** The options, checked at the call (not on the first iteration), as `receive` checks its arguments. */
export function checkMessagesOptions(options: SimpleConsumerMessagesOptions | undefined): {
  maxMessages: number;
  invisibleDurationMs: number | undefined;
  signal: AbortSignal | undefined;
} {
  const signal = signalOf(options, false);
  if (options === undefined)
    return { maxMessages: ITERATOR_MAX_MESSAGES, invisibleDurationMs: undefined, signal };
  rejectUnknownKeys(options, MESSAGES_OPTION_NAMES, 'messages() option');
  const maxMessages = options.maxMessages ?? ITERATOR_MAX_MESSAGES;
  if (!Number.isInteger(maxMessages))
    throw new InvalidArgumentError('maxMessages', `must be an integer, got ${String(maxMessages)}`);
  return { maxMessages, invisibleDurationMs: options.invisibleDurationMs, signal };
}

export async function* iterateMessages(
  consumer: IteratedConsumer,
  options: ReturnType<typeof checkMessagesOptions>,
): AsyncGenerator<PoppedMessage, void, undefined> {
  const { maxMessages, invisibleDurationMs, signal } = options;
  let batch: PoppedMessage[] = [];
  let next = 0;
  let acks: Array<Promise<void>> = [];
  const settleAcks = async (): Promise<void> => {
    const pending = acks;
    acks = [];
    await Promise.all(pending);
  };
  try {
    while (consumer.running()) {
      if (next >= batch.length) {
        await settleAcks();
        if (!consumer.running()) return;
        batch = await consumer.receive(maxMessages, invisibleDurationMs, { signal });
        next = 0;
        continue;
      }
      const message = batch[next++] as PoppedMessage;
      yield message;
      // The body finished with `message` and asks for the next one.
      if (consumer.settledByCaller(message)) continue;
      acks.push(
        consumer.ack(message).catch((err: unknown) => {
          if (!consumer.running()) return;
          // At least once: the message comes back after its invisible time; the loop goes on.
          consumer.logger.warn('ack of an iterated message failed; it will be delivered again', {
            msgId: message.msgId,
            error: err,
          });
        }),
      );
    }
  } finally {
    if (next < batch.length && consumer.running()) consumer.giveBack(batch.slice(next));
    await settleAcks();
  }
}
