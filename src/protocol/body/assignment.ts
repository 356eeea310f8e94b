/**
 * Broker-side load balancing (docs/protocol.md §13.6): the bodies of QUERY_ASSIGNMENT (400) and
 * SET_MESSAGE_REQUEST_MODE (401), and the broker's `messageRequestMode.json`. Both requests have
 * no header; everything is in the JSON body, written as fastjson does (fields sorted, nulls left
 * out, enums by name, MessageQueue as `{"brokerName","queueId","topic"}`).
 */
import { ProtocolError } from '../../errors.js';
import { parseFastjson } from '../fastjson.js';
import { expectArray, expectObject, jsonNumber, jsonString } from '../headers/fields.js';
import { encodeMessageQueueJson, parseMessageQueue, type MessageQueueData } from './message-queue-map.js';

/** Java `MessageRequestMode`: how a group consumes a topic's queues. */
export type MessageRequestMode = 'PULL' | 'POP';
export const MESSAGE_REQUEST_MODES: readonly MessageRequestMode[] = Object.freeze(['PULL', 'POP']);

/** Java `MessageModel` names. */
export type MessageModelName = 'CLUSTERING' | 'BROADCASTING';

/** `QueryAssignmentRequestBody`. */
export interface QueryAssignmentRequest {
  topic: string;
  consumerGroup: string;
  clientId: string;
  /** The client's `AllocateMessageQueueStrategy#getName` (the broker knows AVG and AVG_BY_CIRCLE). */
  strategyName: string;
  messageModel: MessageModelName;
}

/** `MessageQueueAssignment` (its `attachments` are never set by Java and are not carried). */
export interface MessageQueueAssignment {
  messageQueue: MessageQueueData;
  mode: MessageRequestMode;
}

/** `SetMessageRequestModeRequestBody`; also the value kept per topic and group. */
export interface MessageRequestModeSetting {
  topic: string;
  consumerGroup: string;
  mode: MessageRequestMode;
  /**
   * POP: each consumer also pops the queues of the N consumers after it in the sorted client id
   * list; 0 (or ≥ consumers − 1): every consumer pops every queue.
   */
  popShareQueueNum: number;
}

function text(body: Uint8Array | string): string {
  return typeof body === 'string'
    ? body
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

function parseMode(value: unknown, what: string, fallback: MessageRequestMode): MessageRequestMode {
  const s = jsonString(value, what, fallback);
  if (s !== 'PULL' && s !== 'POP') throw new ProtocolError(`${what}: unknown MessageRequestMode ${s}`);
  return s;
}

export function encodeQueryAssignmentRequest(r: QueryAssignmentRequest): Buffer {
  return Buffer.from(
    JSON.stringify({
      clientId: r.clientId,
      consumerGroup: r.consumerGroup,
      messageModel: r.messageModel,
      strategyName: r.strategyName,
      topic: r.topic,
    }),
    'utf8',
  );
}

/** Absent strings read as `''` (the broker refuses what it needs); an unknown model is an error. */
export function parseQueryAssignmentRequest(body: Uint8Array | string): QueryAssignmentRequest {
  const o = expectObject(parseFastjson(text(body)), 'QueryAssignmentRequestBody');
  const model = jsonString(o.messageModel, 'QueryAssignmentRequestBody.messageModel', 'CLUSTERING');
  if (model !== 'CLUSTERING' && model !== 'BROADCASTING')
    throw new ProtocolError(`QueryAssignmentRequestBody.messageModel: unknown MessageModel ${model}`);
  return {
    topic: jsonString(o.topic, 'QueryAssignmentRequestBody.topic', ''),
    consumerGroup: jsonString(o.consumerGroup, 'QueryAssignmentRequestBody.consumerGroup', ''),
    clientId: jsonString(o.clientId, 'QueryAssignmentRequestBody.clientId', ''),
    strategyName: jsonString(o.strategyName, 'QueryAssignmentRequestBody.strategyName', ''),
    messageModel: model,
  };
}

/**
 * `QueryAssignmentResponseBody`; `undefined` assignments is Java's null set ("no valid answer,
 * keep what you hold"), which fastjson leaves out: `{}`.
 */
export function encodeQueryAssignmentResponse(
  assignments: readonly MessageQueueAssignment[] | undefined,
): Buffer {
  if (assignments === undefined) return Buffer.from('{}', 'utf8');
  const items = assignments.map(
    (a) => `{"messageQueue":${encodeMessageQueueJson(a.messageQueue)},"mode":"${a.mode}"}`,
  );
  return Buffer.from(`{"messageQueueAssignments":[${items.join(',')}]}`, 'utf8');
}

/** The assignments, or undefined when the broker sent none (null: skip this round). */
export function parseQueryAssignmentResponse(
  body: Uint8Array | string | undefined,
): MessageQueueAssignment[] | undefined {
  if (body === undefined || body.length === 0) return undefined;
  const o = expectObject(parseFastjson(text(body)), 'QueryAssignmentResponseBody');
  if (o.messageQueueAssignments === undefined || o.messageQueueAssignments === null) return undefined;
  return expectArray(o.messageQueueAssignments, 'messageQueueAssignments').map((v, i) => {
    const a = expectObject(v, `messageQueueAssignments[${i}]`);
    return {
      messageQueue: parseMessageQueue(a.messageQueue, `messageQueueAssignments[${i}].messageQueue`),
      mode: parseMode(a.mode, `messageQueueAssignments[${i}].mode`, 'PULL'),
    };
  });
}

function settingJson(s: MessageRequestModeSetting): string {
  return JSON.stringify({
    consumerGroup: s.consumerGroup,
    mode: s.mode,
    popShareQueueNum: s.popShareQueueNum,
    topic: s.topic,
  });
}

function parseSetting(value: unknown, what: string): MessageRequestModeSetting {
  const o = expectObject(value, what);
  const n = jsonNumber(o.popShareQueueNum, `${what}.popShareQueueNum`, 0);
  if (!Number.isInteger(n)) throw new ProtocolError(`${what}.popShareQueueNum is not an integer`);
  return {
    topic: jsonString(o.topic, `${what}.topic`, ''),
    consumerGroup: jsonString(o.consumerGroup, `${what}.consumerGroup`, ''),
    // Java's field initialiser: PULL when absent.
    mode: parseMode(o.mode, `${what}.mode`, 'PULL'),
    popShareQueueNum: n,
  };
}

export function encodeSetMessageRequestModeBody(s: MessageRequestModeSetting): Buffer {
  return Buffer.from(settingJson(s), 'utf8');
}

export function parseSetMessageRequestModeBody(body: Uint8Array | string): MessageRequestModeSetting {
  return parseSetting(parseFastjson(text(body)), 'SetMessageRequestModeRequestBody');
}

/** `MessageRequestModeManager`'s file: `{"messageRequestModeMap":{topic:{group:setting}}}`. */
export function encodeMessageRequestModeFile(settings: Iterable<MessageRequestModeSetting>): string {
  const byTopic = new Map<string, MessageRequestModeSetting[]>();
  for (const s of settings) {
    let list = byTopic.get(s.topic);
    if (list === undefined) byTopic.set(s.topic, (list = []));
    list.push(s);
  }
  const topics = [...byTopic].map(
    ([topic, list]) =>
      `${JSON.stringify(topic)}:{${list.map((s) => `${JSON.stringify(s.consumerGroup)}:${settingJson(s)}`).join(',')}}`,
  );
  return `{"messageRequestModeMap":{${topics.join(',')}}}`;
}

export function parseMessageRequestModeFile(content: string): MessageRequestModeSetting[] {
  const o = expectObject(parseFastjson(content), 'MessageRequestModeManager');
  if (o.messageRequestModeMap === undefined || o.messageRequestModeMap === null) return [];
  const out: MessageRequestModeSetting[] = [];
  for (const [topic, groups] of Object.entries(
    expectObject(o.messageRequestModeMap, 'messageRequestModeMap'),
  ))
    for (const [group, value] of Object.entries(expectObject(groups, `messageRequestModeMap.${topic}`)))
      out.push({
        ...parseSetting(value, `messageRequestModeMap.${topic}.${group}`),
        topic,
        consumerGroup: group,
      });
  return out;
}
