/**
 * How a consumer group consumes (POP, PUSH, PULL or offline), for the groups list's Mode column
 * and a group's page. Finding out costs a GET_CONSUMER_CONNECTION_LIST and up to three
 * QUERY_ASSIGNMENT per group, so the list reads it through GroupModeCache: a page refreshed or
 * searched again within MODE_CACHE_MS costs no broker request for the groups it already showed.
 */
import type { Admin } from '../../admin/admin.js';
import type { ConsumerConnections } from '../../admin/types.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { esc } from '../html.js';

/** Groups of the list whose mode is looked up (one consumer-connection request each, in parallel). */
export const MODES_LISTED = 50;
/** Subscribed topics whose request mode is asked for per group. */
const MODE_TOPICS = 3;
/** How long the list trusts a mode it looked up: long enough for refreshes and searches, short enough to follow a group switching to POP. */
export const MODE_CACHE_MS = 10_000;
/** Modes kept at most (a list shows MODES_LISTED; searches show others). */
const MODE_CACHE_ENTRIES = 1000;

/** How a group consumes: POP, PUSH/PULL, or offline (no member to ask). */
export interface GroupMode {
  pop: boolean;
  /** What the members heartbeat (CONSUME_PASSIVELY, CONSUME_ACTIVELY, CONSUME_POP), or undefined when none is online. */
  consumeType: string | undefined;
  /** Topics switched to POP with SET_MESSAGE_REQUEST_MODE. */
  popTopics: string[];
}

/**
 * POP when the members heartbeat CONSUME_POP (SimpleConsumer, a 5.x Proxy) or a subscribed
 * topic was switched to POP (SET_MESSAGE_REQUEST_MODE, read back by QUERY_ASSIGNMENT).
 */
export async function groupMode(
  admin: Admin,
  group: string,
  known?: ConsumerConnections | Error,
): Promise<GroupMode> {
  const c = known ?? (await admin.consumerConnections(group).catch((err: unknown) => err as Error));
  if (c instanceof Error) return { pop: false, consumeType: undefined, popTopics: [] };
  if (c.consumeType === 'CONSUME_POP') return { pop: true, consumeType: c.consumeType, popTopics: [] };
  const topics = Object.keys(c.subscriptions)
    .filter((t) => !t.startsWith(RETRY_GROUP_TOPIC_PREFIX))
    .sort()
    .slice(0, MODE_TOPICS);
  const modes = await Promise.all(
    topics.map((t) => admin.messageRequestMode(t, group).catch(() => undefined)),
  );
  const popTopics = topics.filter((_, i) => modes[i] === 'POP');
  return {
    pop: c.consumeType === 'CONSUME_POP' || popTopics.length > 0,
    consumeType: c.consumeType,
    popTopics,
  };
}

/** Modes looked up within the last MODE_CACHE_MS, by group (a lookup under way is shared). */
export class GroupModeCache {
  private readonly entries = new Map<string, { at: number; mode: Promise<GroupMode> }>();

  constructor(
    private readonly admin: Admin,
    private readonly ttlMs = MODE_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  get(group: string): Promise<GroupMode> {
    const at = this.now();
    const hit = this.entries.get(group);
    if (hit !== undefined && at - hit.at < this.ttlMs) return hit.mode;
    this.entries.delete(group);
    if (this.entries.size >= MODE_CACHE_ENTRIES) {
      // Map order is insertion order: the first entry is the oldest
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    const mode = groupMode(this.admin, group);
    this.entries.set(group, { at, mode });
    return mode;
  }
}

const CONSUME_TYPE_NAMES: Readonly<Record<string, string>> = {
  CONSUME_PASSIVELY: 'PUSH',
  CONSUME_ACTIVELY: 'PULL',
  CONSUME_POP: 'POP',
};

export function modeCell(m: GroupMode | undefined): string {
  if (m === undefined) return '–';
  if (m.pop) return '<strong class="pop" data-mode="POP">POP</strong>';
  if (m.consumeType === undefined) return '<span data-mode="offline">offline</span>';
  const name = CONSUME_TYPE_NAMES[m.consumeType] ?? m.consumeType;
  return `<span data-mode="${esc(name)}">${esc(name)}</span>`;
}
