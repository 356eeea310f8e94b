/**
 * What every send entry point (`send`, `sendOneway`, `sendBatch`, and `sendWith` under half
 * messages and requests) checks and prepares before anything waits, in one order: the call
 * options, the queue selection, the message itself, then an already aborted signal. A bad
 * argument throws here, so nothing has been counted, held or sent.
 */
import { signalOf, throwIfAborted, type CallOptions } from '../remoting/abort.js';
import {
  prepareBatch,
  prepareMessage,
  type Message,
  type PreparedMessage,
  type PrepareSettings,
  type TraceFields,
} from './message.js';
import { queueSelection, type QueueSelection, type SendOptions } from './queue-select.js';
import type { UniqIdGenerator } from '../protocol/message/message-id.js';

/** A send checked and prepared, ready for the dispatch. */
export interface CheckedSend {
  prepared: PreparedMessage;
  /** The selected queue (`queue`, `shardingKey`, `selector`), undefined for the send loop's choice. */
  selection: QueueSelection | undefined;
  signal: AbortSignal | undefined;
}

/** The producer's settings a send is prepared with. */
export interface SendEntrySettings {
  namespace: string | undefined;
  prepare: PrepareSettings;
  ids: UniqIdGenerator;
}

/**
 * One message with its SendOptions; `adjust` changes the prepared message before it goes out
 * (half messages, requests); `trace` is its span's context for the properties.
 */
export function checkSend(
  message: Message,
  options: SendOptions | undefined,
  settings: SendEntrySettings,
  adjust?: (p: PreparedMessage) => PreparedMessage,
  trace?: TraceFields,
): CheckedSend {
  const signal = signalOf(options, false); // queueSelection checks the keys of SendOptions
  const selection = queueSelection(options, message, settings.namespace);
  // The shardingKey option is the message group: it goes on the wire as `__SHARDINGKEY` too.
  const key = selection === undefined ? undefined : options?.shardingKey;
  const grouped =
    key !== undefined && typeof message === 'object' && message !== null && message.messageGroup === undefined
      ? { ...message, messageGroup: key }
      : message;
  let prepared = prepareMessage(grouped, settings.prepare, settings.ids, trace);
  // An adjusted message has properties prepareMessage did not write: autoBatch reads them.
  if (adjust !== undefined)
    prepared = { ...adjust(prepared), batchLane: undefined, propertiesHead: undefined };
  throwIfAborted(signal, 'the send');
  return { prepared, selection, signal };
}

/**
 * Messages of one topic as one batch, with CallOptions; a batch of one message group (prepareBatch
 * refuses mixed groups) goes to that group's queue.
 */
export function checkBatch(
  messages: readonly Message[],
  options: CallOptions | undefined,
  settings: SendEntrySettings,
  trace?: readonly (TraceFields | undefined)[],
): CheckedSend {
  const signal = signalOf(options);
  const prepared = prepareBatch(messages, settings.prepare, settings.ids, trace);
  const selection = queueSelection(undefined, messages[0] as Message, settings.namespace);
  throwIfAborted(signal, 'the send');
  return { prepared, selection, signal };
}
