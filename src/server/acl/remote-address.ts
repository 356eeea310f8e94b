/**
 * Address patterns of `globalWhiteRemoteAddresses` and `whiteRemoteAddress` (Java
 * `RemoteAddressStrategyFactory`, docs/security.md §2.6). A matcher takes the client host
 * (the remote address up to its last ':'). An invalid pattern throws when the file is loaded.
 */
import { InvalidArgumentError } from '../../errors.js';

export type AddressMatcher = (host: string) => boolean;

const NEVER: AddressMatcher = () => false;
const ALWAYS: AddressMatcher = () => true;

function isOctet(s: string): boolean {
  return /^\d{1,3}$/.test(s) && Number(s) <= 255;
}

/** IPv6 to its full 8-group form (lower case), so `::1` equals `0:0:0:0:0:0:0:1`; IPv4 unchanged. */
function normalizeHost(host: string): string {
  let h = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (h.startsWith('::ffff:') && h.includes('.')) h = h.slice(7);
  if (!h.includes(':')) return h;
  const [head = '', tail = ''] = h.split('::');
  const a = head === '' ? [] : head.split(':');
  const b = h.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const fill = h.includes('::') ? Array<string>(Math.max(0, 8 - a.length - b.length)).fill('0') : [];
  return [...a, ...fill, ...b].map((g) => g.toLowerCase().replace(/^0+(?=.)/, '')).join(':');
}

function range(field: string, pattern: string, seg: string): [number, number] {
  if (seg === '*') return [0, 255];
  const m = /^(\d{1,3})-(\d{1,3})$/.exec(seg);
  const lo = Number(m?.[1]);
  const hi = Number(m?.[2]);
  if (!m || lo > hi || hi > 255)
    throw new InvalidArgumentError(field, `invalid address pattern ${JSON.stringify(pattern)}`);
  return [lo, hi];
}

/** Builds the matcher for one entry; throws InvalidArgumentError naming `field` for a bad one. */
export function addressMatcher(field: string, pattern: unknown): AddressMatcher {
  if (pattern === null || pattern === undefined) return NEVER;
  if (typeof pattern !== 'string') throw new InvalidArgumentError(field, 'must be a string');
  const p = pattern.trim();
  if (p === '') return NEVER;
  if (p === '*' || p === '*.*.*.*' || p === '*:*:*:*:*:*:*:*') return ALWAYS;
  if (p.includes(',') && !p.includes('{')) {
    const set = new Set(p.split(',').map((s) => normalizeHost(s.trim())));
    return (host) => set.has(normalizeHost(host));
  }
  const brace = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.\{([\d,\s]+)\}$/.exec(p);
  if (brace) {
    const prefix = brace[1] as string;
    const set = new Set((brace[2] as string).split(',').map((s) => `${prefix}.${s.trim()}`));
    return (host) => set.has(normalizeHost(host));
  }
  const segs = p.split('.');
  const ranged = segs.findIndex((s) => s === '*' || s.includes('-'));
  if (segs.length === 4 && ranged > 0) {
    if (!segs.slice(0, ranged).every(isOctet))
      throw new InvalidArgumentError(field, `invalid address pattern ${JSON.stringify(pattern)}`);
    const [lo, hi] = range(field, pattern, segs[ranged] as string);
    const prefix = segs.slice(0, ranged);
    // As Java: the first ranged segment decides; later segments are not checked.
    return (host) => {
      const h = normalizeHost(host).split('.');
      if (h.length !== 4 || prefix.some((s, i) => Number(s) !== Number(h[i]))) return false;
      const v = Number(h[ranged]);
      return isOctet(h[ranged] ?? '') && v >= lo && v <= hi;
    };
  }
  if (segs.length === 4 ? segs.every(isOctet) : p.includes(':')) {
    const want = normalizeHost(p);
    return (host) => normalizeHost(host) === want;
  }
  throw new InvalidArgumentError(field, `invalid address pattern ${JSON.stringify(pattern)}`);
}

/** The client host of a connection address ("ip:port" → "ip"). */
export function hostOf(remoteAddress: string): string {
  const i = remoteAddress.lastIndexOf(':');
  return i > 0 ? remoteAddress.slice(0, i) : remoteAddress;
}
