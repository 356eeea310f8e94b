/**
 * ACL permissions (Java `org.apache.rocketmq.acl.common.Permission`, docs/security.md §2.2):
 * DENY=1, ANY=2, PUB=4, SUB=8; `PUB|SUB` = 12. A missing or unknown value is DENY.
 */
import { InvalidArgumentError } from '../../errors.js';

export const Perm = Object.freeze({ DENY: 1, ANY: 2, PUB: 4, SUB: 8 });

/** Java `Permission.parsePermFromString`: `PUB|SUB` and `SUB|PUB` are 12; anything unknown DENY. */
export function parsePerm(text: unknown): number {
  if (typeof text !== 'string') return Perm.DENY;
  switch (text.trim().toUpperCase()) {
    case 'PUB':
      return Perm.PUB;
    case 'SUB':
      return Perm.SUB;
    case 'PUB|SUB':
    case 'SUB|PUB':
      return Perm.PUB | Perm.SUB;
    case 'ANY':
      return Perm.ANY;
    default:
      return Perm.DENY;
  }
}

/** Java `Permission.checkPermission(needed, owned)`. */
export function checkPermission(needed: number, owned: number): boolean {
  if ((owned & Perm.DENY) > 0) return false;
  if ((needed & Perm.ANY) > 0) return (owned & Perm.PUB) > 0 || (owned & Perm.SUB) > 0;
  return (needed & owned) > 0;
}

/** `Res=Perm` entries (topicPerms / groupPerms); a malformed entry is an error naming `field`. */
export function parseResourcePerms(
  field: string,
  entries: readonly unknown[],
  prefix = '',
): Map<string, number> {
  const out = new Map<string, number>();
  entries.forEach((entry, i) => {
    const text = typeof entry === 'string' ? entry : '';
    const eq = text.indexOf('=');
    if (eq <= 0 || text.indexOf('=', eq + 1) !== -1)
      throw new InvalidArgumentError(
        `${field}[${i}]`,
        `expected "Resource=PERM", got ${JSON.stringify(entry)}`,
      );
    out.set(prefix + text.slice(0, eq).trim(), parsePerm(text.slice(eq + 1)));
  });
  return out;
}
