/**
 * A message that reaches a producer from the broker: a reply (PUSH_REPLY_MESSAGE_TO_CLIENT) or a
 * half message under transaction check (CHECK_TRANSACTION_STATE). Both arrive as a property
 * string, a sysFlag and a (possibly compressed) body; this is their one application view.
 */
import { decodeProperties, PropertyKey } from '../protocol/message/properties.js';
import { decompressBody } from '../protocol/message/compression.js';
import { MessageSysFlag } from '../protocol/message/sysflag.js';
import { isSystemPropertyName } from '../protocol/validation.js';
import { withoutNamespace } from '../client/namespace.js';
import { priorityOf } from '../protocol/message/priority.js';

export interface ReceivedMessage {
  /** Topic as the application names it (namespace removed). */
  readonly topic: string;
  /** Decompressed body. */
  readonly body: Buffer;
  readonly tags: string | undefined;
  readonly keys: readonly string[];
  /** User properties only. */
  readonly properties: Readonly<Record<string, string>>;
  /** System properties (UNIQ_KEY, CORRELATION_ID, TRAN_MSG, …). */
  readonly systemProperties: Readonly<Record<string, string>>;
  /** UNIQ_KEY (the client message id), '' when absent. */
  readonly msgId: string;
  readonly bornTimestamp: number;
  readonly flag: number;
  /** [5.x] Property `__SHARDINGKEY`: the message group it was sent with. */
  readonly messageGroup?: string | undefined;
  /** [5.4+] Property `_SYS_MSG_PRIORITY_` as a number (absent unless a whole number ≥ 0). */
  readonly priority?: number | undefined;
}

export interface ReceivedFields {
  topic: string;
  properties: string | undefined;
  sysFlag: number;
  body: Uint8Array | undefined;
  bornTimestamp: number;
  flag: number;
  namespace: string | undefined;
}

export function receivedMessage(f: ReceivedFields): ReceivedMessage {
  const all = decodeProperties(f.properties ?? '');
  const properties: Record<string, string> = {};
  const systemProperties: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) (isSystemPropertyName(k) ? systemProperties : properties)[k] = v;
  const raw = f.body ?? new Uint8Array(0);
  const body =
    (f.sysFlag & MessageSysFlag.COMPRESSED_FLAG) !== 0 ? decompressBody(raw, f.sysFlag) : Buffer.from(raw);
  const keys = all[PropertyKey.KEYS];
  return {
    topic: withoutNamespace(f.topic, f.namespace),
    body,
    tags: all[PropertyKey.TAGS],
    keys: keys === undefined ? [] : keys.split(' ').filter((k) => k.length > 0),
    properties,
    systemProperties,
    msgId: all[PropertyKey.UNIQ_KEY] ?? '',
    bornTimestamp: f.bornTimestamp,
    flag: f.flag,
    messageGroup: all[PropertyKey.SHARDING_KEY],
    priority: priorityOf(all[PropertyKey.PRIORITY]),
  };
}
