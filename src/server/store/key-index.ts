/**
 * In-memory index from (topic, key) to commit-log offsets for QUERY_MESSAGE, rebuilt from the
 * log on start. Memory is fixed: a ring of `capacity` entries chained per hash slot (the shape of
 * Java's IndexFile, kept in typed arrays). When the ring is full the oldest entries are
 * overwritten; lookups stop at entries that have left the ring. Only hashes are kept, so callers
 * confirm each hit by reading the record.
 */
import { getProperty, PropertyKey } from '../../protocol/message/properties.js';

/** Key separator in the KEYS property (Java `MessageConst.KEY_SEPARATOR`). */
const KEY_SEPARATOR = ' ';

export class KeyIndex {
  private readonly capacity: number;
  private readonly slotMask: number;
  /** Per slot: sequence number + 1 of the newest entry, 0 when empty. */
  private readonly slots: Float64Array;
  private readonly hashes: Int32Array;
  private readonly offsets: Float64Array;
  /** Sequence number + 1 of the previous entry in the same slot chain. */
  private readonly prev: Float64Array;
  private next = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
    let slots = 16;
    while (slots < capacity) slots *= 2;
    this.slotMask = slots - 1;
    this.slots = new Float64Array(slots);
    this.hashes = new Int32Array(capacity);
    this.offsets = new Float64Array(capacity);
    this.prev = new Float64Array(capacity);
  }

  get size(): number {
    return Math.min(this.next, this.capacity);
  }

  add(topic: string, key: string, physicalOffset: number): void {
    const h = keyHash(topic, key);
    const slot = h & this.slotMask;
    const seq = this.next++;
    const i = seq % this.capacity;
    this.hashes[i] = h;
    this.offsets[i] = physicalOffset;
    this.prev[i] = this.slots[slot]!;
    this.slots[slot] = seq + 1;
  }

  /** Candidate offsets for (topic, key), newest first, at most `limit`. */
  lookup(topic: string, key: string, limit: number): number[] {
    const h = keyHash(topic, key);
    const oldestLive = this.next - this.capacity;
    const out: number[] = [];
    let seq = this.slots[h & this.slotMask]! - 1;
    while (seq >= 0 && seq >= oldestLive && out.length < limit) {
      const i = seq % this.capacity;
      if (this.hashes[i] === h) out.push(this.offsets[i]!);
      seq = this.prev[i]! - 1;
    }
    return out;
  }

  /** Forgets everything. */
  clear(): void {
    this.slots.fill(0);
    this.next = 0;
  }
}

/** FNV-1a over the UTF-16 code units of `topic \u0001 key`. */
export function keyHash(topic: string, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < topic.length; i++) h = Math.imul(h ^ topic.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 1, 0x01000193);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** KEYS split by space plus UNIQ_KEY (what Java's IndexService indexes). */
export function keysOf(properties: string): string[] {
  const out: string[] = [];
  const keys = getProperty(properties, PropertyKey.KEYS);
  if (keys !== undefined) for (const k of keys.split(KEY_SEPARATOR)) if (k.length > 0) out.push(k);
  const uniq = getProperty(properties, PropertyKey.UNIQ_KEY);
  if (uniq !== undefined && !out.includes(uniq)) out.push(uniq);
  return out;
}
