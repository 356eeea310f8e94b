/**
 * Disk-full injection for chaos runs: while a store's data directory is marked full, every
 * commit-log append writes part of its bytes and then fails with ENOSPC, exactly as a real full
 * disk does mid-write, so the store's rollback (not a clean early refusal) is what keeps a partial
 * record out of the log. Off unless a broker started with `faultInjection: true` marks its store
 * (the `diskFull` fault); nothing else in the store reads this module's state.
 */

/** The error a write gets on a full disk (what `fs` throws: an Error with `code` ENOSPC). */
export class InjectedDiskFullError extends Error {
  readonly code = 'ENOSPC';
  readonly errno = -28;
  readonly syscall = 'write';

  constructor(readonly path: string) {
    super(`ENOSPC: no space left on device (injected), write '${path}'`);
    this.name = 'InjectedDiskFullError';
  }
}

const fullDirs = new Set<string>();

/** Marks (or clears) the store rooted at `dataDir` as being on a full disk. */
export function setDiskFull(dataDir: string, full: boolean): void {
  if (full) fullDirs.add(dataDir);
  else fullDirs.delete(dataDir);
}

export function isDiskFull(dataDir: string): boolean {
  return fullDirs.has(dataDir);
}

/**
 * Called before a commit-log write of `parts` (`bytes` in all): on a disk marked full, writes the
 * first half with `writePrefix` (a torn append) and throws {@link InjectedDiskFullError};
 * otherwise does nothing.
 */
export async function failAppendIfDiskFull(
  dataDir: string,
  parts: readonly Uint8Array[],
  bytes: number,
  writePrefix: (prefix: Uint8Array) => Promise<void>,
): Promise<void> {
  if (!fullDirs.has(dataDir)) return;
  const half = Buffer.concat(parts, bytes).subarray(0, Math.floor(bytes / 2));
  if (half.byteLength > 0) await writePrefix(half);
  throw new InjectedDiskFullError(dataDir);
}
