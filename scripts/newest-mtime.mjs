// Up-to-date checks of the build scripts: the newest modification time under a path.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Newest mtime under a path; directories count too, so deleting a file makes outputs stale. */
export function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, name)));
  return newest;
}
