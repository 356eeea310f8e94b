/**
 * IP address text ↔ bytes for the stored format and message ids (4 bytes IPv4, 16 bytes IPv6).
 * Pure parsing; nothing here resolves names or touches the network.
 */
import { ProtocolError } from '../../errors.js';

function parseIpv4Into(text: string, out: Uint8Array, at: number): boolean {
  const parts = text.split('.');
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const p = parts[i]!;
    if (p.length === 0 || p.length > 3) return false;
    let v = 0;
    for (let j = 0; j < p.length; j++) {
      const c = p.charCodeAt(j) - 48;
      if (c < 0 || c > 9) return false;
      v = v * 10 + c;
    }
    if (v > 255) return false;
    out[at + i] = v;
  }
  return true;
}

function parseHexGroup(g: string): number {
  if (g.length === 0 || g.length > 4) return -1;
  let v = 0;
  for (let i = 0; i < g.length; i++) {
    const d = parseInt(g[i]!, 16);
    if (Number.isNaN(d)) return -1;
    v = v * 16 + d;
  }
  return v;
}

function parseIpv6(text: string): Uint8Array | undefined {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const out = new Uint8Array(16);
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): string[] => (part.length === 0 ? [] : part.split(':'));
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const words: number[] = [];
  const pushGroups = (list: string[], target: number[]): boolean => {
    for (let i = 0; i < list.length; i++) {
      const g = list[i]!;
      if (i === list.length - 1 && g.includes('.')) {
        const v4 = new Uint8Array(4);
        if (!parseIpv4Into(g, v4, 0)) return false;
        target.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
        continue;
      }
      const v = parseHexGroup(g);
      if (v < 0) return false;
      target.push(v);
    }
    return true;
  };
  const tailWords: number[] = [];
  if (!pushGroups(head, words) || !pushGroups(tail, tailWords)) return undefined;
  if (halves.length === 1) {
    if (words.length !== 8) return undefined;
  } else {
    if (words.length + tailWords.length > 7) return undefined;
    while (words.length + tailWords.length < 8) words.push(0);
  }
  words.push(...tailWords);
  for (let i = 0; i < 8; i++) {
    out[i * 2] = words[i]! >>> 8;
    out[i * 2 + 1] = words[i]! & 0xff;
  }
  return out;
}

/** 4 bytes for dotted IPv4, 16 bytes for IPv6 text (brackets and zone ids tolerated). */
export function parseIp(host: string): Uint8Array {
  const v4 = new Uint8Array(4);
  if (parseIpv4Into(host, v4, 0)) return v4;
  const v6 = host.includes(':') ? parseIpv6(host) : undefined;
  if (v6) return v6;
  throw new ProtocolError(`not an IP address: ${JSON.stringify(host)}`);
}

/** Dotted IPv4 for 4 bytes; RFC 5952 compressed lowercase text for 16 bytes. */
export function formatIp(bytes: Uint8Array): string {
  if (bytes.length === 4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  if (bytes.length !== 16) throw new ProtocolError(`IP address of ${bytes.length} bytes`);
  const words: number[] = [];
  for (let i = 0; i < 8; i++) words.push((bytes[i * 2]! << 8) | bytes[i * 2 + 1]!);
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (w: number[]): string => w.map((x) => x.toString(16)).join(':');
  if (bestStart < 0) return hex(words);
  return `${hex(words.slice(0, bestStart))}::${hex(words.slice(bestStart + bestLen))}`;
}
