/**
 * A small broker state file (topics, delay offsets, transaction progress): read once at start,
 * rewritten atomically (temp file + rename), so a crash leaves either the old or the new content.
 * Writes coalesce: at most one is in flight and at most one waits; the waiting one serializes the
 * latest state when it starts, so a burst of changes costs two writes, not one per change.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../observability/logger.js';

interface QueuedWrite {
  serialize: () => string;
  done: Promise<void>;
}

export class StateFile {
  private inFlight: Promise<void> | undefined;
  private queued: QueuedWrite | undefined;
  /** Files actually written (for tests and diagnostics). */
  writes = 0;
  /**
   * The directory was made (or found) by an earlier write: the next ones skip the mkdir, one of
   * the four file-system calls of a write (a write that finds it gone makes it again).
   */
  private dirReady = false;

  constructor(readonly path: string) {}

  /**
   * Hands the file's text to `apply`. A missing file is a fresh start; an unreadable or
   * malformed one is logged as `<what> unreadable, starting over` and skipped.
   */
  async load(apply: (text: string) => void, logger: Logger, what: string): Promise<void> {
    try {
      apply(await readFile(this.path, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        logger.warn(`${what} unreadable, starting over`, { error: err });
    }
  }

  /** Replaces the content with `text` (coalesced like {@link save}). */
  write(text: string): Promise<void> {
    return this.save(() => text);
  }

  /**
   * Writes `serialize()` now, or after the write in flight; while one waits, later calls replace
   * its serializer and share its promise. A failed write does not block the next.
   */
  save(serialize: () => string): Promise<void> {
    if (this.queued) {
      this.queued.serialize = serialize;
      return this.queued.done;
    }
    if (!this.inFlight) return this.start(serialize);
    const prior = this.inFlight;
    const entry: QueuedWrite = { serialize, done: Promise.resolve() };
    entry.done = prior
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start(entry.serialize);
      });
    this.queued = entry;
    return entry.done;
  }

  /** Resolves once no write is in flight or waiting (never rejects). */
  async settled(): Promise<void> {
    while (this.inFlight || this.queued) await (this.queued?.done ?? this.inFlight)?.catch(() => undefined);
  }

  private start(serialize: () => string): Promise<void> {
    const run = (async () => {
      const text = serialize();
      if (!this.dirReady) await mkdir(dirname(this.path), { recursive: true });
      try {
        await writeFile(`${this.path}.tmp`, text);
      } catch (err) {
        if (!this.dirReady || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(`${this.path}.tmp`, text);
      }
      this.dirReady = true;
      await rename(`${this.path}.tmp`, this.path);
      this.writes++;
    })();
    const tracked = run.finally(() => {
      if (this.inFlight === tracked) this.inFlight = undefined;
    });
    this.inFlight = tracked;
    return tracked;
  }
}
