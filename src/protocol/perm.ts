/** Topic and broker permissions (Java `PermName`, docs/protocol.md §7.4). */
export const PermName = {
  PERM_PRIORITY: 8,
  PERM_READ: 4,
  PERM_WRITE: 2,
  PERM_INHERIT: 1,
} as const;

/** Java `TopicSysFlag`. */
export const TopicSysFlag = {
  FLAG_UNIT: 1,
  FLAG_UNIT_SUB: 2,
} as const;

export function isReadable(perm: number): boolean {
  return (perm & PermName.PERM_READ) === PermName.PERM_READ;
}

export function isWriteable(perm: number): boolean {
  return (perm & PermName.PERM_WRITE) === PermName.PERM_WRITE;
}

export function isInherited(perm: number): boolean {
  return (perm & PermName.PERM_INHERIT) === PermName.PERM_INHERIT;
}

/** Java `PermName.perm2String`: `RWX` with `-` for missing bits (X = inherit). */
export function permToString(perm: number): string {
  return (isReadable(perm) ? 'R' : '-') + (isWriteable(perm) ? 'W' : '-') + (isInherited(perm) ? 'X' : '-');
}
