/**
 * A small broker state file (topics, delay offsets, transaction progress): read once at start,
 * rewritten atomically (temp file + rename) one write at a time, so a crash leaves either the
 * old or the new content.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from '../../observability/logger.js';

export class StateFile {
  private writing: Promise<void> = Promise.resolve();

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

  /** Replaces the content; writes queue behind each other, a failed one does not block the next. */
  write(text: string): Promise<void> {
    this.writing = this.writing
      .catch(() => undefined)
      .then(async () => {
        await mkdir(dirname(this.path), { recursive: true });
        await writeFile(`${this.path}.tmp`, text);
        await rename(`${this.path}.tmp`, this.path);
      });
    return this.writing;
  }
}
