/**
 * Client identity (docs/protocol.md §8): `clientIP@instanceName[@unitName]`. Java replaces the
 * instance name `DEFAULT` with `<pid>#<nanoTime>`; we compute that once per process, so every
 * producer of this process with default settings shares one client instance.
 */
import { networkInterfaces } from 'node:os';

let processInstanceName: string | undefined;

/** `<pid>#<hrtime ns>`, fixed for the life of the process. */
export function defaultInstanceName(): string {
  processInstanceName ??= `${process.pid}#${process.hrtime.bigint()}`;
  return processInstanceName;
}

/** The instance name actually used: `DEFAULT` → `defaultInstanceName()`. */
export function resolveInstanceName(instanceName: string): string {
  return instanceName === 'DEFAULT' ? defaultInstanceName() : instanceName;
}

/** First non-internal IPv4 address of this host (Java prefers a non-loopback address), else 127.0.0.1. */
export function localClientIp(): string {
  const all = networkInterfaces();
  for (const list of Object.values(all)) {
    for (const info of list ?? []) {
      if (info.family === 'IPv4' && !info.internal) return info.address;
    }
  }
  return '127.0.0.1';
}

export function buildClientId(clientIP: string, instanceName: string, unitName?: string): string {
  let id = `${clientIP}@${resolveInstanceName(instanceName)}`;
  if (unitName) id += `@${unitName}`;
  return id;
}
