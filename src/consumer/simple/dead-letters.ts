/**
 * The gRPC proxy's `PopMessageResultFilterImpl` rule for a SimpleConsumer, here because a broker
 * reached over remoting has none: a message redelivered more than maxReconsumeTimes times goes to
 * the DLQ (CONSUMER_SEND_MSG_BACK, delay level −1) and is acked instead of being handed out.
 */
import type { Logger } from '../../observability/logger.js';
import type { PoppedMessage } from './pop-response.js';

/**
 * A message redelivered more than maxReconsumeTimes could not be moved to the DLQ (`error`
 * undefined: the broker refused the send-back, see the log) or not acked after it; it stays
 * un-acked and comes back after its invisible time.
 */
export interface DeadLetterFailedEvent {
  message: PoppedMessage;
  error: unknown;
}

/** What the rule needs of its consumer. */
export interface DeadLetterPort {
  readonly maxReconsumeTimes: number;
  /** CONSUMER_SEND_MSG_BACK of `message` to the DLQ (core/send-back.ts); false when the broker refused it. */
  toDeadLetterQueue(message: PoppedMessage): Promise<boolean>;
  readonly logger: Logger;
  ack(message: PoppedMessage): Promise<void>;
  /** The 'deadLetterFailed' event. */
  failed(event: DeadLetterFailedEvent): void;
}

/** `messages` without those that went to the DLQ; one the DLQ send fails for stays un-acked and comes back. */
export async function withoutDeadLetters(
  port: DeadLetterPort,
  messages: PoppedMessage[],
): Promise<PoppedMessage[]> {
  const max = port.maxReconsumeTimes;
  // The common case, a response with no message past its retries: the array itself.
  if (messages.every((m) => m.reconsumeTimes <= max)) return messages;
  const keep: PoppedMessage[] = [];
  for (const m of messages) {
    if (m.reconsumeTimes <= max) {
      keep.push(m);
      continue;
    }
    if (await port.toDeadLetterQueue(m)) {
      port.logger.info('message moved to the DLQ', { msgId: m.msgId, reconsumeTimes: m.reconsumeTimes });
      await port.ack(m).catch((err: unknown) => {
        port.logger.warn('ack after DLQ failed', { msgId: m.msgId, error: err });
        port.failed({ message: m, error: err });
      });
    } else port.failed({ message: m, error: undefined });
  }
  return keep;
}
