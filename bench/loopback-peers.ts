/**
 * The remote addresses of this process's TCP connections that are not loopback (Linux /proc):
 * a benchmark child checks that the client it ran (ours or a third-party one) talked to nothing
 * but 127.0.0.1 / ::1. Elsewhere, or when /proc is unreadable, it finds nothing.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** TCP state 0A: a listening socket has no peer. */
const LISTEN = '0A';

/** "0100007F" (a 32-bit word in host order, little-endian here) → [127, 0, 0, 1]. */
function wordBytes(hex: string): number[] {
  const n = parseInt(hex, 16);
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
}

/** A /proc/net/tcp{,6} address (hex, 8 or 32 digits) as text, and whether it is loopback. */
function decodeAddress(hex: string): { text: string; loopback: boolean } {
  const words = (hex.match(/.{8}/g) ?? []).map(wordBytes);
  const v4 = words.length === 1 ? words[0] : undefined;
  if (v4 !== undefined) return { text: v4.join('.'), loopback: v4[0] === 127 };
  const bytes = words.flat();
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return { text: `::ffff:${bytes.slice(12).join('.')}`, loopback: bytes[12] === 127 };
  const isLoopback6 = bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1;
  const text = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return { text, loopback: isLoopback6 };
}

function socketInodes(): Set<string> {
  const inodes = new Set<string>();
  let fds: string[] = [];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m?.[1] !== undefined) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  return inodes;
}

/** Non-loopback peers (`addr:port`) of this process's open TCP connections. */
export function nonLoopbackPeers(): string[] {
  const inodes = socketInodes();
  const peers: string[] = [];
  for (const table of ['/proc/self/net/tcp', '/proc/self/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      const [remote, state, inode] = [f[2], f[3], f[9]];
      if (remote === undefined || inode === undefined || state === LISTEN || !inodes.has(inode)) continue;
      const [addrHex = '', portHex = ''] = remote.split(':');
      // An unconnected socket's peer is all zeros.
      if (/^0+$/.test(addrHex)) continue;
      const addr = decodeAddress(addrHex);
      if (!addr.loopback) peers.push(`${addr.text}:${parseInt(portHex, 16)}`);
    }
  }
  return peers;
}
