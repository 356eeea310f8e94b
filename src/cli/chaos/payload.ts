/**
 * The chaos run's message bodies: a pure function of (seed, seq), so the orchestrator knows every
 * byte a consumer must see without keeping the bodies, and a consumer reports only a digest.
 */
import { createHash } from 'node:crypto';
import { rng } from './random.js';

/** Body of message `seq`: 16 to 2,063 pseudo-random bytes. */
export function bodyFor(seed: number, seq: number): Buffer {
  const random = rng((seed ^ Math.imul(seq + 1, 0x9e3779b1)) >>> 0);
  const body = Buffer.allocUnsafe(16 + Math.floor(random() * 2048));
  for (let i = 0; i < body.length; i++) body[i] = Math.floor(random() * 256);
  return body;
}

/** What a consumer reports for a body it received (sha-256, first 16 hex digits). */
export function digestOf(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex').slice(0, 16);
}
