/**
 * Bodies of GET_CONSUMER_CONNECTION_LIST (`ConsumerConnection`) and GET_CONSUME_STATS
 * (`ConsumeStats`), written as fastjson writes them (keys sorted, MessageQueue map keys bare)
 * and read tolerantly (docs/admin-cli.md §1.2).
 */
import { parseFastjson } from '../fastjson.js';
import { parseSubscription, subscriptionJson, type SubscriptionData } from '../headers/heartbeat.js';
import { expectArray, expectObject, jsonNumber, jsonString } from '../headers/fields.js';
import {
  decodeMessageQueueMap,
  encodeMessageQueueMap,
  type MessageQueueData,
  type MessageQueueMapEntry,
} from './message-queue-map.js';

/** Java `Connection`: one client channel of the group. */
export interface ConsumerConnectionEntry {
  clientId: string;
  /** `ip:port` of the client's channel. */
  clientAddr: string;
  /** LanguageCode name, e.g. `JAVA`. */
  language: string;
  version: number;
}

/** Java `ConsumerConnection`. */
export interface ConsumerConnection {
  connectionSet: ConsumerConnectionEntry[];
  /** topic → SubscriptionData. */
  subscriptionTable: Record<string, SubscriptionData>;
  consumeType: string;
  messageModel: string;
  consumeFromWhere: string;
}

/** Java `OffsetWrapper`. */
export interface OffsetWrapper {
  brokerOffset: number;
  consumerOffset: number;
  /** Store time of the last consumed message (consumerOffset − 1), 0 when none. */
  lastTimestamp: number;
  /**
   * Ours, not Java's (a Java reader ignores it): POP messages of the queue handed out and not
   * yet acked, which the committed offset has already passed. Absent from a Java broker.
   */
  popInflight?: number | undefined;
}

/** Java `ConsumeStats`. */
export interface ConsumeStats {
  offsetTable: Array<readonly [MessageQueueData, OffsetWrapper]>;
  consumeTps: number;
}

function text(body: Uint8Array | string): string {
  return typeof body === 'string'
    ? body
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/** Java's `Double.toString` for the values a TPS takes (`0.0`, `12.5`). */
export function javaDoubleText(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

/** A `connectionSet` array in fastjson's key order (also the producer connection body's). */
export function connectionSetJson(set: readonly ConsumerConnectionEntry[]): Array<Record<string, unknown>> {
  return set.map((e) => ({
    clientAddr: e.clientAddr,
    clientId: e.clientId,
    language: e.language,
    version: e.version,
  }));
}

/** A parsed `connectionSet` array; absent reads as empty. */
export function parseConnectionSet(value: unknown): ConsumerConnectionEntry[] {
  return expectArray(value ?? [], 'connectionSet').map((v) => {
    const e = expectObject(v, 'Connection');
    return {
      clientId: jsonString(e.clientId, 'Connection.clientId', ''),
      clientAddr: jsonString(e.clientAddr, 'Connection.clientAddr', ''),
      language: jsonString(e.language, 'Connection.language', ''),
      version: jsonNumber(e.version, 'Connection.version', 0),
    };
  });
}

export function encodeConsumerConnection(c: ConsumerConnection): Buffer {
  const connectionSet = connectionSetJson(c.connectionSet);
  const subscriptionTable: Record<string, unknown> = {};
  for (const topic of Object.keys(c.subscriptionTable).sort())
    subscriptionTable[topic] = subscriptionJson(c.subscriptionTable[topic]!);
  return Buffer.from(
    JSON.stringify({
      connectionSet,
      consumeFromWhere: c.consumeFromWhere,
      consumeType: c.consumeType,
      messageModel: c.messageModel,
      subscriptionTable,
    }),
    'utf8',
  );
}

export function parseConsumerConnection(body: Uint8Array | string): ConsumerConnection {
  const o = expectObject(parseFastjson(text(body)), 'ConsumerConnection');
  const subscriptionTable: Record<string, SubscriptionData> = {};
  for (const [topic, sub] of Object.entries(expectObject(o.subscriptionTable ?? {}, 'subscriptionTable')))
    subscriptionTable[topic] = parseSubscription(sub);
  return {
    connectionSet: parseConnectionSet(o.connectionSet),
    subscriptionTable,
    consumeType: jsonString(o.consumeType, 'consumeType', ''),
    messageModel: jsonString(o.messageModel, 'messageModel', ''),
    consumeFromWhere: jsonString(o.consumeFromWhere, 'consumeFromWhere', ''),
  };
}

export function encodeConsumeStats(s: ConsumeStats): Buffer {
  const table = encodeMessageQueueMap(
    s.offsetTable,
    (w) =>
      `{"brokerOffset":${w.brokerOffset},"consumerOffset":${w.consumerOffset},"lastTimestamp":${w.lastTimestamp}${
        w.popInflight === undefined ? '' : `,"popInflight":${w.popInflight}`
      }}`,
  );
  return Buffer.from(`{"consumeTps":${javaDoubleText(s.consumeTps)},"offsetTable":${table}}`, 'utf8');
}

/** `offsetTable` comes back keyed by `mqKey`. */
export function parseConsumeStats(body: Uint8Array | string): {
  offsetTable: Map<string, MessageQueueMapEntry<OffsetWrapper>>;
  consumeTps: number;
} {
  const o = expectObject(parseFastjson(text(body)), 'ConsumeStats');
  return {
    consumeTps: jsonNumber(o.consumeTps, 'consumeTps', 0),
    offsetTable: decodeMessageQueueMap(o.offsetTable, (v, what) => {
      const w = expectObject(v, what);
      return {
        brokerOffset: jsonNumber(w.brokerOffset, `${what}.brokerOffset`, 0),
        consumerOffset: jsonNumber(w.consumerOffset, `${what}.consumerOffset`, 0),
        lastTimestamp: jsonNumber(w.lastTimestamp, `${what}.lastTimestamp`, 0),
        ...(w.popInflight === undefined
          ? {}
          : { popInflight: jsonNumber(w.popInflight, `${what}.popInflight`, 0) }),
      };
    }),
  };
}
