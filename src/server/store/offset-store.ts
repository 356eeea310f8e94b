/**
 * Consumer offsets per (group, topic, queueId), persisted to `config/consumerOffset.json` in
 * Java's layout `{"offsetTable":{"topic@group":{"0":12,...}}}`. Writes are atomic: a temp file
 * is written and fsync'ed, then renamed over the old one, so a crash leaves either version.
 * Java's own file (integer keys unquoted by fastjson) is read as well.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parseFastjson } from '../../protocol/fastjson.js';
import type { Logger } from '../../observability/logger.js';

export class ConsumerOffsetStore {
  readonly path: string;
  /** `topic@group` → queueId → offset, as in Java `ConsumerOffsetManager.offsetTable`. */
  private readonly table = new Map<string, Map<number, number>>();
  private dirty = false;
  private persisting: Promise<void> = Promise.resolve();
  private readonly logger: Logger;
  /** Awaited after the offsets are taken and before they are written (setWriteBarrier). */
  private barriers: Array<() => Promise<void>> = [];

  constructor(path: string, logger: Logger) {
    this.path = path;
    this.logger = logger;
  }

  /** Loads the file if present; a corrupt file is logged and ignored (offsets restart from the broker's policy). */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    try {
      const parsed = parseFastjson(text) as { offsetTable?: Record<string, Record<string, unknown>> };
      for (const [key, queues] of Object.entries(parsed.offsetTable ?? {})) {
        const m = new Map<number, number>();
        for (const [q, v] of Object.entries(queues)) {
          const queueId = Number(q);
          const offset = Number(v);
          if (Number.isInteger(queueId) && Number.isSafeInteger(offset)) m.set(queueId, offset);
        }
        this.table.set(key, m);
      }
    } catch (err) {
      this.logger.error('consumer offset file unreadable; starting without offsets', {
        path: this.path,
        err,
      });
    }
  }

  get(group: string, topic: string, queueId: number): number | undefined {
    return this.table.get(`${topic}@${group}`)?.get(queueId);
  }

  set(group: string, topic: string, queueId: number, offset: number): void {
    const key = `${topic}@${group}`;
    let m = this.table.get(key);
    if (m === undefined) {
      m = new Map();
      this.table.set(key, m);
    }
    if (m.get(queueId) !== offset) {
      m.set(queueId, offset);
      this.dirty = true;
    }
  }

  /** Drops the group's offsets of `topic` (Java `ConsumerOffsetManager#removeOffset`). */
  removeGroupTopic(group: string, topic: string): void {
    if (this.table.delete(`${topic}@${group}`)) this.dirty = true;
  }

  /** Groups that have an offset for `topic`. */
  groupsOf(topic: string): string[] {
    const out: string[] = [];
    for (const key of this.table.keys()) {
      const at = key.lastIndexOf('@');
      if (key.slice(0, at) === topic) out.push(key.slice(at + 1));
    }
    return out;
  }

  /** Every (group, topic) pair with its offsets. */
  entries(): Array<{ group: string; topic: string; offsets: ReadonlyMap<number, number> }> {
    return [...this.table].map(([key, offsets]) => {
      const at = key.lastIndexOf('@');
      return { topic: key.slice(0, at), group: key.slice(at + 1), offsets };
    });
  }

  /**
   * `barrier` runs after each write has taken its offsets and before it writes them: the POP
   * state (broker/pop/pop-state.ts) flushes there, so no offset a POP advanced is on disk before
   * the checkpoint of the messages it handed out. Returns the function that removes it.
   */
  setWriteBarrier(barrier: () => Promise<void>): () => void {
    this.barriers.push(barrier);
    return () => {
      this.barriers = this.barriers.filter((b) => b !== barrier);
    };
  }

  /** Writes the file if anything changed; concurrent calls are serialized. */
  persist(): Promise<void> {
    const run = this.persisting.then(() => this.writeFile());
    this.persisting = run.catch(() => undefined);
    return run;
  }

  private async writeFile(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const offsetTable: Record<string, Record<string, number>> = {};
    for (const [key, m] of this.table) offsetTable[key] = Object.fromEntries(m);
    const text = JSON.stringify({ offsetTable }, null, 2);
    const tmp = `${this.path}.tmp`;
    try {
      for (const barrier of this.barriers) await barrier();
      await mkdir(dirname(this.path), { recursive: true });
      const fh = await open(tmp, 'w');
      try {
        await fh.writeFile(text, 'utf8');
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, this.path);
    } catch (err) {
      this.dirty = true;
      throw err;
    }
  }
}
