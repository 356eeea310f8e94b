/**
 * Paged reading of stored messages for tools (rocketmq-dashboard's "message by topic and time"
 * and "DLQ message" pages): a topic between two store times, with the queue range found by
 * SEARCH_OFFSET_BY_TIMESTAMP (29) and read by pulls as TOOLS_CONSUMER (nothing committed), and a
 * group's dead-letter topic `%DLQ%<group>` newest first. Each page ends with a cursor of per-queue
 * offsets, so the next page costs no offset look-ups and a page is bounded however wide the range.
 */
import {
  ConsumerGroupNotFoundError,
  ConsumerNotOnlineError,
  InvalidArgumentError,
  TopicNotFoundError,
} from '../errors.js';
import { QueryAssignment } from '../protocol/headers/consumer.js';
import { OffsetResponse, SearchOffsetByTimestamp } from '../protocol/headers/offset.js';
import { encodeQueryAssignmentRequest, parseQueryAssignmentResponse } from '../protocol/body/assignment.js';
import { PropertyKey } from '../protocol/message/properties.js';
import { DLQ_GROUP_TOPIC_PREFIX } from '../protocol/validation.js';
import type { AdminContext } from './admin-context.js';
import { checkGroupName, consumerConnections } from './consumers.js';
import { messagesOfQueue } from './messages.js';
import { checkTopicName, topicStats } from './topics.js';
import type { AdminMessage, AdminQueue, TopicQueueStats } from './types.js';

/** Default and largest messages of one page. */
export const BROWSE_PAGE_SIZE = 32;
export const MAX_BROWSE_PAGE_SIZE = 256;

/** One queue of a time-range browse: the next offset to read and the (exclusive) offset to stop at. */
export interface BrowseQueueCursor extends AdminQueue {
  offset: number;
  endOffset: number;
}

export interface BrowseByTimeRequest {
  topic: string;
  /** Store time from (epoch ms, inclusive). */
  begin: number;
  /** Store time to (epoch ms, inclusive); not before `begin`. */
  end: number;
  /** Only this broker's queues. */
  brokerName?: string | undefined;
  /** Only this queue id (on every broker, or on `brokerName`). */
  queueId?: number | undefined;
  /** @default 32 (at most 256) */
  pageSize?: number | undefined;
  /** The `next` of the previous page: continues it (`begin`, `end` and the filters are then not looked up again). */
  cursor?: readonly BrowseQueueCursor[] | undefined;
}

export interface BrowsePage {
  /** The page's messages stored within [begin, end], oldest first. */
  messages: AdminMessage[];
  /** Every queue of the range after this page. */
  queues: BrowseQueueCursor[];
  /** The cursor of the next page; undefined when the range is read to its end. */
  next: BrowseQueueCursor[] | undefined;
}

/** A message of a dead-letter topic with the topic it was consumed from. */
export interface DeadLetterMessage extends AdminMessage {
  /** RETRY_TOPIC (set by the broker's CONSUMER_SEND_MSG_BACK), else DLQ_ORIGIN_TOPIC (5.x POP). */
  originalTopic: string | undefined;
}

/** One queue of `%DLQ%<group>` while paging newest first: messages below `before` are still to read. */
export interface DeadLetterQueueCursor extends AdminQueue {
  before: number;
  minOffset: number;
}

export interface DeadLetterPage {
  group: string;
  topic: string;
  /** False when the group has no dead-letter topic (nothing ever failed for good). */
  exists: boolean;
  /** Messages the dead-letter queues hold (max − min offsets). */
  total: number;
  /** Newest first. */
  messages: DeadLetterMessage[];
  next: DeadLetterQueueCursor[] | undefined;
}

function checkPageSize(n: number | undefined): number {
  const size = n ?? BROWSE_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1 || size > MAX_BROWSE_PAGE_SIZE)
    throw new InvalidArgumentError(
      'pageSize',
      `must be an integer in [1, ${MAX_BROWSE_PAGE_SIZE}], got ${size}`,
    );
  return size;
}

function checkTime(field: string, t: number): number {
  if (!Number.isSafeInteger(t) || t < 0)
    throw new InvalidArgumentError(field, `must be epoch milliseconds >= 0, got ${t}`);
  return t;
}

function checkOffset(field: string, n: unknown): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0)
    throw new InvalidArgumentError(field, `must be an integer >= 0, got ${String(n)}`);
  return n;
}

function checkQueueOf(topic: string, q: AdminQueue, field: string): void {
  if (q.topic !== topic) throw new InvalidArgumentError(`${field}.topic`, `must be ${topic}, got ${q.topic}`);
  if (typeof q.brokerName !== 'string' || q.brokerName === '')
    throw new InvalidArgumentError(`${field}.brokerName`, 'is required');
  checkOffset(`${field}.queueId`, q.queueId);
}

/** SEARCH_OFFSET_BY_TIMESTAMP on the queue's broker: the first offset stored at or after `timestamp`. */
async function offsetAt(ctx: AdminContext, q: AdminQueue, timestamp: number): Promise<number> {
  const { address } = await ctx.brokerAddress(q.brokerName);
  const r = await ctx.call(address, SearchOffsetByTimestamp, {
    topic: q.topic,
    queueId: q.queueId,
    timestamp,
    bname: q.brokerName,
  });
  return Math.max(0, OffsetResponse.decode(r.extFields).offset);
}

/** The queues of the topic a browse reads, after the broker and queue filters. */
function selectQueues(queues: readonly TopicQueueStats[], req: BrowseByTimeRequest): TopicQueueStats[] {
  let selected = [...queues];
  if (req.brokerName !== undefined) {
    selected = selected.filter((q) => q.brokerName === req.brokerName);
    if (selected.length === 0)
      throw new InvalidArgumentError('brokerName', `${req.brokerName} serves no queue of ${req.topic}`);
  }
  if (req.queueId !== undefined) {
    const ids = selected.map((q) => q.queueId);
    const max = Math.max(...ids);
    if (!Number.isInteger(req.queueId) || !ids.includes(req.queueId))
      throw new InvalidArgumentError(
        'queueId',
        `must be a queue of ${req.topic} in 0..${max}, got ${req.queueId}`,
      );
    selected = selected.filter((q) => q.queueId === req.queueId);
  }
  return selected;
}

/**
 * The start and end offsets of [begin, end] on each queue. A store answers the offset look-up
 * with its nearest offset (4.9 may round either way), so the end is one past the offset found for
 * `end`, and the messages read are filtered by store time.
 */
async function rangeCursor(ctx: AdminContext, req: BrowseByTimeRequest): Promise<BrowseQueueCursor[]> {
  const stats = await topicStats(ctx, req.topic);
  return Promise.all(
    selectQueues(stats.queues, req).map(async (q) => {
      const queue = { topic: q.topic, brokerName: q.brokerName, queueId: q.queueId };
      if (q.maxOffset <= q.minOffset) return { ...queue, offset: q.minOffset, endOffset: q.minOffset };
      const [from, to] = await Promise.all([offsetAt(ctx, queue, req.begin), offsetAt(ctx, queue, req.end)]);
      const offset = Math.max(q.minOffset, from);
      return { ...queue, offset, endOffset: Math.max(offset, Math.min(q.maxOffset, to + 1)) };
    }),
  );
}

/**
 * One page of the messages of `topic` stored between `begin` and `end` (inclusive), queue after
 * queue; pass `next` back as `cursor` for the following page.
 */
export async function browseMessagesByTime(ctx: AdminContext, req: BrowseByTimeRequest): Promise<BrowsePage> {
  const topic = checkTopicName(req.topic);
  const begin = checkTime('begin', req.begin);
  const end = checkTime('end', req.end);
  if (end < begin) throw new InvalidArgumentError('end', `is before begin (${end} < ${begin})`);
  const pageSize = checkPageSize(req.pageSize);
  if (req.queueId !== undefined) checkOffset('queueId', req.queueId);
  let queues: BrowseQueueCursor[];
  if (req.cursor !== undefined) {
    queues = req.cursor.map((c, i) => {
      checkQueueOf(topic, c, `cursor[${i}]`);
      const offset = checkOffset(`cursor[${i}].offset`, c.offset);
      const endOffset = checkOffset(`cursor[${i}].endOffset`, c.endOffset);
      return {
        topic,
        brokerName: c.brokerName,
        queueId: c.queueId,
        offset: Math.min(offset, endOffset),
        endOffset,
      };
    });
  } else {
    queues = await rangeCursor(ctx, { ...req, topic });
  }
  const messages: AdminMessage[] = [];
  // Pulls per page are bounded too: a range whose store times interleave may yield few per pull.
  let pulls = 4 * queues.length + 16;
  for (const q of queues) {
    while (q.offset < q.endOffset && messages.length < pageSize && pulls-- > 0) {
      const read = await messagesOfQueue(
        ctx,
        q,
        q.offset,
        Math.min(pageSize - messages.length, q.endOffset - q.offset),
      );
      const inRange = read.messages.filter((m) => m.queueOffset < q.endOffset);
      const last = inRange[inRange.length - 1];
      if (last === undefined) {
        // nothing at this offset (expired or moved): jump to where the broker says reading goes on
        q.offset = read.nextOffset > q.offset ? Math.min(read.nextOffset, q.endOffset) : q.endOffset;
        continue;
      }
      q.offset = last.queueOffset + 1;
      for (const m of inRange) if (m.storeTimestamp >= begin && m.storeTimestamp <= end) messages.push(m);
    }
  }
  messages.sort((a, b) => a.storeTimestamp - b.storeTimestamp || a.commitLogOffset - b.commitLogOffset);
  return { messages, queues, next: queues.some((q) => q.offset < q.endOffset) ? queues : undefined };
}

/** The topic a dead letter came from: RETRY_TOPIC, else 5.x's DLQ_ORIGIN_TOPIC. */
export function originalTopicOf(m: AdminMessage): string | undefined {
  return m.properties[PropertyKey.RETRY_TOPIC] ?? m.properties[PropertyKey.DLQ_ORIGIN_TOPIC];
}

/**
 * One page of `%DLQ%<group>`, newest first (merged by store time across the brokers' DLQ
 * queues); `next` continues with older ones. A group without a DLQ topic gets an empty page with
 * `exists: false`, not an error.
 */
export async function deadLetterMessages(
  ctx: AdminContext,
  group: string,
  pageSize?: number,
  cursor?: readonly DeadLetterQueueCursor[],
): Promise<DeadLetterPage> {
  checkGroupName(group);
  const size = checkPageSize(pageSize);
  const topic = DLQ_GROUP_TOPIC_PREFIX + group;
  let queues: DeadLetterQueueCursor[];
  let total: number;
  if (cursor !== undefined) {
    queues = cursor.map((c, i) => {
      checkQueueOf(topic, c, `cursor[${i}]`);
      const minOffset = checkOffset(`cursor[${i}].minOffset`, c.minOffset);
      const before = checkOffset(`cursor[${i}].before`, c.before);
      return { topic, brokerName: c.brokerName, queueId: c.queueId, before, minOffset };
    });
    total = queues.reduce((s, q) => s + (q.before - q.minOffset), 0);
  } else {
    let stats;
    try {
      stats = await topicStats(ctx, topic);
    } catch (err) {
      if (err instanceof TopicNotFoundError)
        return { group, topic, exists: false, total: 0, messages: [], next: undefined };
      throw err;
    }
    queues = stats.queues.map((q) => ({
      topic,
      brokerName: q.brokerName,
      queueId: q.queueId,
      before: q.maxOffset,
      minOffset: q.minOffset,
    }));
    total = stats.queues.reduce((s, q) => s + Math.max(0, q.maxOffset - q.minOffset), 0);
  }
  // the newest `size` of each queue, then the newest `size` of them all
  const candidates: Array<{ q: DeadLetterQueueCursor; m: DeadLetterMessage }> = [];
  await Promise.all(
    queues.map(async (q) => {
      if (q.before <= q.minOffset) return;
      const from = Math.max(q.minOffset, q.before - size);
      const read = await messagesOfQueue(ctx, q, from, q.before - from);
      for (const m of read.messages)
        if (m.queueOffset < q.before) candidates.push({ q, m: { ...m, originalTopic: originalTopicOf(m) } });
      // what the store no longer holds below `from` is gone: do not page into it
      if (read.minOffset > q.minOffset) q.minOffset = Math.min(read.minOffset, q.before);
    }),
  );
  candidates.sort((a, b) => b.m.storeTimestamp - a.m.storeTimestamp || b.m.queueOffset - a.m.queueOffset);
  const taken = candidates.slice(0, size);
  for (const q of queues) {
    const mine = taken.filter((t) => t.q === q).map((t) => t.m.queueOffset);
    if (mine.length > 0) q.before = Math.min(...mine);
    else if (!candidates.some((c) => c.q === q)) q.before = q.minOffset;
  }
  return {
    group,
    topic,
    exists: true,
    total,
    messages: taken.map((t) => t.m),
    next: queues.some((q) => q.before > q.minOffset) ? queues : undefined,
  };
}

/**
 * How `group` consumes `topic` when its consumers let the broker assign queues (QUERY_ASSIGNMENT):
 * POP or PULL as SET_MESSAGE_REQUEST_MODE left it, asked for the group's first member online;
 * undefined when no member is online (the broker answers only for a group it knows).
 */
export async function messageRequestModeOf(
  ctx: AdminContext,
  topic: string,
  group: string,
): Promise<'PULL' | 'POP' | undefined> {
  checkTopicName(topic);
  checkGroupName(group);
  const address = [...ctx.routeMasters(await ctx.route(topic)).values()][0];
  if (address === undefined) return undefined;
  // asked as a member: a client the group does not know is assigned no PULL queues at all
  let member: string | undefined;
  try {
    member = (await consumerConnections(ctx, group)).connections[0]?.clientId;
  } catch (err) {
    if (err instanceof ConsumerNotOnlineError || err instanceof ConsumerGroupNotFoundError) return undefined;
    throw err;
  }
  if (member === undefined) return undefined;
  const body = encodeQueryAssignmentRequest({
    topic,
    consumerGroup: group,
    clientId: member,
    strategyName: 'AVG',
    messageModel: 'CLUSTERING',
  });
  const r = await ctx.call(address, QueryAssignment, undefined, body);
  const assignments = parseQueryAssignmentResponse(r.body);
  if (assignments === undefined) return undefined;
  return assignments.some((a) => a.mode === 'POP') ? 'POP' : 'PULL';
}
