/**
 * The requests in flight on one connection, by opaque: a Map's subset of methods on an
 * open-addressing table whose slot arrays are replaced only when it grows.
 *
 * Why not a Map: a request is added and removed on every round trip, and a Map replaces its
 * hash table every few dozen of those. A replaced table that had reached the old generation
 * still points at the requests it held, so the scavenger keeps them, and everything they
 * reference (command, promise, the caller's continuation), alive until the next full GC: at 64
 * requests in flight that promoted a few MB per scavenge and made garbage collection the
 * largest single cost of a send. Here a removed entry's slot is cleared, so nothing stale
 * points at a finished request.
 */

const EMPTY = 0;
const USED = 1;
const INITIAL_CAPACITY = 64;

export class OpaqueTable<V> {
  private keys: Int32Array;
  private state: Uint8Array;
  private vals: Array<V | undefined>;
  private mask: number;
  private count = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    let size = INITIAL_CAPACITY;
    while (size < capacity * 2) size *= 2;
    this.keys = new Int32Array(size);
    this.state = new Uint8Array(size);
    this.vals = new Array<V | undefined>(size).fill(undefined);
    this.mask = size - 1;
  }

  get size(): number {
    return this.count;
  }

  /** Linear probing from the key's home slot; opaques are consecutive, so homes rarely collide. */
  private find(key: number): number {
    let i = (key ^ (key >>> 16)) & this.mask;
    while (this.state[i] === USED) {
      if (this.keys[i] === key) return i;
      i = (i + 1) & this.mask;
    }
    return -1;
  }

  has(key: number): boolean {
    return this.find(key) >= 0;
  }

  get(key: number): V | undefined {
    const i = this.find(key);
    return i < 0 ? undefined : this.vals[i];
  }

  set(key: number, value: V): this {
    const found = this.find(key);
    if (found >= 0) {
      this.vals[found] = value;
      return this;
    }
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    let i = (key ^ (key >>> 16)) & this.mask;
    while (this.state[i] === USED) i = (i + 1) & this.mask;
    this.keys[i] = key;
    this.state[i] = USED;
    this.vals[i] = value;
    this.count++;
    return this;
  }

  delete(key: number): boolean {
    let i = this.find(key);
    if (i < 0) return false;
    this.count--;
    // Backward-shift deletion: later entries of the probe run move up, so no tombstones are left.
    for (;;) {
      this.state[i] = EMPTY;
      this.vals[i] = undefined;
      let j = i;
      for (;;) {
        j = (j + 1) & this.mask;
        if (this.state[j] !== USED) return true;
        const k = this.keys[j] as number;
        const home = (k ^ (k >>> 16)) & this.mask;
        // Move j into the hole at i unless its home lies cyclically in (i, j].
        const stays = i <= j ? i < home && home <= j : i < home || home <= j;
        if (!stays) break;
      }
      this.keys[i] = this.keys[j] as number;
      this.state[i] = USED;
      this.vals[i] = this.vals[j];
      i = j;
    }
  }

  clear(): void {
    this.state.fill(EMPTY);
    this.vals.fill(undefined);
    this.count = 0;
  }

  /** The entries at the time of the call: the caller may delete while it iterates. */
  *[Symbol.iterator](): IterableIterator<[number, V]> {
    const entries: Array<[number, V]> = [];
    for (let i = 0; i <= this.mask; i++)
      if (this.state[i] === USED) entries.push([this.keys[i] as number, this.vals[i] as V]);
    yield* entries;
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this) yield v;
  }

  private grow(): void {
    const keys = this.keys;
    const state = this.state;
    const vals = this.vals;
    const size = (this.mask + 1) * 2;
    this.keys = new Int32Array(size);
    this.state = new Uint8Array(size);
    this.vals = new Array<V | undefined>(size).fill(undefined);
    this.mask = size - 1;
    this.count = 0;
    for (let i = 0; i < state.length; i++) if (state[i] === USED) this.set(keys[i] as number, vals[i] as V);
  }
}
