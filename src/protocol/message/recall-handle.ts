/**
 * [5.x 5.3.2+] The recall handle of a timer message (docs/protocol.md §13.4): what a broker puts in
 * the send response's `recallHandle` and takes back in RECALL_MESSAGE (370). Java
 * `RecallMessageHandle.HandleV1`: the UTF-8 text `v1 <topic> <brokerName> <timestamp> <messageId>`
 * (one space between fields) in URL-safe base64 with `=` padding. `topic` is the wire topic (the
 * namespace applied), `timestamp` the broker's TIMER_OUT_MS + 1 in ms as decimal text,
 * `messageId` the message's UNIQ_KEY.
 */

const VERSION_1 = 'v1';
const SEPARATOR = ' ';
/** URL-safe alphabet, then at most two `=`. */
const BASE64URL = /^[A-Za-z0-9_-]*(={0,2})$/;

export interface RecallHandle {
  readonly version: 'v1';
  /** The wire topic (namespace applied) the message was sent to. */
  readonly topic: string;
  /** The broker that stored it: RECALL_MESSAGE goes to its master (`bname`). */
  readonly brokerName: string;
  /** Decimal epoch ms as the broker wrote it (its TIMER_OUT_MS + 1); not checked to be a number. */
  readonly timestamp: string;
  /** The message's UNIQ_KEY (the `msgId` of its SendResult). */
  readonly messageId: string;
}

/** Java `HandleV1.buildHandle` (no field check, as there). */
export function encodeRecallHandle(h: Omit<RecallHandle, 'version'>): string {
  const raw = [VERSION_1, h.topic, h.brokerName, h.timestamp, h.messageId].join(SEPARATOR);
  const b64 = Buffer.from(raw, 'utf8').toString('base64url');
  // Java's URL encoder pads; Node's 'base64url' does not.
  return b64 + '='.repeat((4 - (b64.length % 4)) % 4);
}

/**
 * Java `RecallMessageHandle.decodeHandle`: undefined where Java throws "recall handle is invalid"
 * (empty, not URL-safe base64, first field not `v1`, fewer than five fields). Java splits with
 * `String.split`, which drops trailing empty fields and keeps fields past the fifth unread.
 */
export function decodeRecallHandle(handle: unknown): RecallHandle | undefined {
  if (typeof handle !== 'string' || handle.length === 0) return undefined;
  const m = BASE64URL.exec(handle);
  if (m === null) return undefined;
  const padding = (m[1] as string).length;
  // Java's decoder: padded input is whole 4-character units; unpadded input never leaves one
  // character over (6 bits are no byte).
  if (padding > 0 ? handle.length % 4 !== 0 : handle.length % 4 === 1) return undefined;
  const raw = Buffer.from(handle, 'base64url').toString('utf8');
  const items = raw.split(SEPARATOR);
  while (items.length > 0 && items[items.length - 1] === '') items.pop();
  if (items[0] !== VERSION_1 || items.length < 5) return undefined;
  const [, topic, brokerName, timestamp, messageId] = items as [string, string, string, string, string];
  return { version: VERSION_1, topic, brokerName, timestamp, messageId };
}
