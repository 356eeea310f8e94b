/**
 * Request checks of the dashboard, before any handler runs:
 * - basic authentication (when configured), compared in constant time;
 * - on a loopback bind, the Host header must name this server (a DNS-rebinding page would send
 *   its own host name), so no other site can read a page and its CSRF token;
 * - every POST must be same-origin: `Sec-Fetch-Site` (when sent) same-origin or none, `Origin`
 *   (when sent) this server, and the form's CSRF token equal to this server's.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { DashboardAuth } from './options.js';

export function newCsrfToken(): string {
  return randomBytes(24).toString('base64url');
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the request carries the configured user and password. */
export function authorized(req: IncomingMessage, auth: DashboardAuth | undefined): boolean {
  if (!auth) return true;
  const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
  if (!m) return false;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // both compared, so the time taken does not tell which one was wrong
  const userOk = sameSecret(decoded.slice(0, colon), auth.user);
  const passwordOk = sameSecret(decoded.slice(colon + 1), auth.password);
  return userOk && passwordOk;
}

/** Host header values this server answers to when bound to loopback. */
export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/** Why a POST is refused as cross-site, or undefined when it is same-origin with a valid token. */
export function crossSiteReason(
  req: IncomingMessage,
  token: string | undefined,
  expected: string,
): string | undefined {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `cross-site request refused (Sec-Fetch-Site: ${String(site)})`;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`)
    return `cross-site request refused (Origin: ${origin})`;
  if (token === undefined || !sameSecret(token, expected))
    return 'missing or wrong CSRF token: reload the page and submit the form again';
  return undefined;
}
