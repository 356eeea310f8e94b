/**
 * How the dashboard answers besides a page: the security headers every response carries, plain
 * text (errors outside a page), redirects, static assets, downloads (exports), and the bounded
 * reading of a form body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest POST body accepted (forms are a few hundred bytes). */
export const MAX_FORM_BYTES = 64 * 1024;

export const SECURITY_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  // not no-referrer: Chromium then sends `Origin: null` with our own form posts
  'Referrer-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store',
} as const;

/** A file a POST answers with instead of a page (an export). */
export interface Download {
  download: { filename: string; type: string; body: string };
}

export function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(`${text}\n`);
}

export function download(res: ServerResponse, file: Download['download']): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': file.type,
    'Content-Disposition': `attachment; filename="${file.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
  });
  res.end(file.body);
}

export function redirect(res: ServerResponse, to: string): void {
  res.writeHead(303, { ...SECURITY_HEADERS, Location: to });
  res.end();
}

export function asset(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': type, 'Cache-Control': 'max-age=300' });
  res.end(body);
}

/** The body as text, or undefined past MAX_FORM_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
