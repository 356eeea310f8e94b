/**
 * The SimpleConsumer's side of batched acks (docs/consumers.md §3.8): what a received message
 * carries for its ack (its handle already parsed, and whether it was acked or had its invisible
 * duration changed), and `ack(message | messages)` through the consumer's PopAcker
 * (core/pop-acker.ts) with the failures attributed to their messages (AckFailedError).
 */
import { AckFailedError, InvalidArgumentError, InvalidReceiptHandleError } from '../../errors.js';
import type { PopAckTarget, PopAcker } from '../core/pop-acker.js';
import type { ConsumerMessage } from '../core/message-view.js';
import { ackTargetOf, type AckPort } from './ack.js';
import type { ParsedHandle, PoppedMessage } from './pop-response.js';

/** The handle a message was received with, parsed: an ack of it need not parse it again. */
const BUILT_HANDLE = Symbol('builtHandle');
/**
 * What the application did with a message: ACKED (acked or being acked: a second ack is refused
 * before any I/O) or CHANGED (its invisible duration; the iterator then leaves it alone). Kept on
 * the message rather than in WeakSets, whose upkeep cost more per message than the rest of the ack.
 */
const SETTLED = Symbol('settled');
export const Settled = { OPEN: 0, ACKED: 1, CHANGED: 2 } as const;
export type Settled = (typeof Settled)[keyof typeof Settled];

type Popped = { -readonly [K in keyof PoppedMessage]: PoppedMessage[K] } & {
  [BUILT_HANDLE]?: ParsedHandle;
  [SETTLED]?: Settled;
};

/**
 * Makes a decoded message a received one: its handle, group and ack state, set in the same
 * order on every message so that they all share one shape.
 */
export function markReceived(m: ConsumerMessage, parsed: ParsedHandle, consumerGroup: string): PoppedMessage {
  const popped = m as Popped;
  popped.receiptHandle = parsed.handle;
  popped.consumerGroup = consumerGroup;
  popped[BUILT_HANDLE] = parsed;
  popped[SETTLED] = Settled.OPEN;
  return popped;
}

export function settledOf(message: PoppedMessage): Settled {
  return (message as Popped)[SETTLED] ?? Settled.OPEN;
}

export function settle(message: PoppedMessage, state: Settled): void {
  (message as Popped)[SETTLED] = state;
}

/** The parsed form of `message.receiptHandle`, when the consumer built it and it was not replaced. */
export function builtInfo(message: PoppedMessage): ParsedHandle['info'] {
  const built = (message as Popped)[BUILT_HANDLE];
  return built !== undefined && built.handle === message.receiptHandle ? built.info : undefined;
}

/** InvalidReceiptHandleError when `message` was acked (or is being acked) already. */
export function checkNotAcked(message: PoppedMessage): void {
  if (settledOf(message) === Settled.ACKED)
    throw new InvalidReceiptHandleError(message.receiptHandle, 'this message was already acked');
}

/**
 * Acks one message or every message of an array through `acker`; an array rejects with
 * AckFailedError naming each message not acked (input order), after the others were acked.
 * `port.running()` throws first when the consumer is not running.
 */
export async function ackMessages(
  port: AckPort,
  acker: PopAcker,
  message: PoppedMessage | readonly PoppedMessage[],
): Promise<void> {
  if (!Array.isArray(message)) return ackOne(port, acker, message as PoppedMessage);
  const messages = message as readonly PoppedMessage[];
  for (const [i, m] of messages.entries())
    if (m === null || typeof m !== 'object' || typeof m.receiptHandle !== 'string')
      throw new InvalidArgumentError(`message[${i}]`, 'must be a message returned by receive()');
  port.running();
  // One acker call and one promise for the whole array, not one per message.
  const acking: PoppedMessage[] = [];
  const targets: PopAckTarget[] = [];
  const before: Settled[] = [];
  const failed: Array<{ i: number; message: PoppedMessage; error: unknown }> = [];
  const indexOf: number[] = [];
  messages.forEach((m, i) => {
    try {
      const target = ackTargetOf(port, m, builtInfo(m));
      checkNotAcked(m);
      targets.push(target);
      acking.push(m);
      before.push(settledOf(m));
      indexOf.push(i);
      settle(m, Settled.ACKED);
    } catch (error) {
      failed.push({ i, message: m, error });
    }
  });
  await acker.ackAll(targets, (k, error) => {
    if (error === undefined) return;
    const m = acking[k]!;
    settle(m, before[k]!);
    failed.push({ i: indexOf[k]!, message: m, error });
  });
  if (failed.length === 0) return;
  failed.sort((a, b) => a.i - b.i);
  const failures = failed.map(({ message: m, error }) => ({ message: m, error }));
  throw new AckFailedError(failures, messages.length - failures.length);
}

/** The ack of one message through the batcher; marked acked at once, unmarked again if it fails. */
function ackOne(port: AckPort, acker: PopAcker, message: PoppedMessage): Promise<void> {
  let target;
  let before: Settled;
  try {
    target = ackTargetOf(port, message, builtInfo(message));
    checkNotAcked(message);
    before = settledOf(message);
  } catch (err) {
    return Promise.reject(err);
  }
  settle(message, Settled.ACKED);
  return acker.ack(target).catch((err: unknown) => {
    settle(message, before);
    throw err;
  });
}
