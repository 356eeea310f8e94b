/**
 * Fault injection switchboard: makes a broker slow, failing, silent or unreachable on purpose,
 * so producer failover can be tested and demonstrated. Off unless the broker was started with
 * `faultInjection: true`; controlled in-process (`broker.faults`) or remotely (request code 9901).
 */
import { InvalidArgumentError } from '../../errors.js';
import { RequestCode, ResponseCode } from '../../protocol/codes.js';

/** Request code of the remote control command (not a RocketMQ code). */
export const FAULT_INJECTION_REQUEST_CODE = 9901;

export const SEND_REQUEST_CODES: readonly number[] = Object.freeze([
  RequestCode.SEND_MESSAGE,
  RequestCode.SEND_MESSAGE_V2,
  RequestCode.SEND_BATCH_MESSAGE,
]);

export interface FaultSpec {
  /** Added before handling: fixed ms, or a uniform [min, max] range. */
  latencyMs?: number | [min: number, max: number];
  /** Answer this response code instead (FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE: stored first, like a real broker). */
  errorCode?: number;
  /** Fraction of matching requests that get `errorCode`, 0..1. @default 1 */
  errorRate?: number;
  /** Never answer matching requests. */
  hang?: boolean;
  /** Close the connection of each matching request instead of answering. */
  dropConnections?: boolean;
  /** Close every new connection at once, and the existing ones. */
  refuseConnections?: boolean;
  /** Which request codes the fault applies to. @default SEND_MESSAGE, SEND_MESSAGE_V2, SEND_BATCH_MESSAGE */
  requestCodes?: number[];
  /** Clear the fault by itself after this long, ms (the only remote way out of `refuseConnections`). */
  durationMs?: number;
  /**
   * The store's disk is "full": every commit-log append fails with ENOSPC after writing part of
   * its bytes (store/fault-injection.ts); sends are answered SERVICE_NOT_AVAILABLE. Not tied to
   * `requestCodes`: it is the disk that fails, whatever wrote to it.
   */
  diskFull?: boolean;
}

/** Response codes for which the message is stored before the fault answers. */
export const STORED_THEN_ANSWERED_CODES: ReadonlySet<number> = new Set([
  ResponseCode.FLUSH_DISK_TIMEOUT,
  ResponseCode.FLUSH_SLAVE_TIMEOUT,
  ResponseCode.SLAVE_NOT_AVAILABLE,
]);

export type FaultDecision =
  | { kind: 'none'; latencyMs: number }
  | { kind: 'hang'; latencyMs: number }
  | { kind: 'drop'; latencyMs: number }
  | { kind: 'error'; code: number; afterStore: boolean; latencyMs: number };

function nonNegative(field: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
    throw new InvalidArgumentError(field, `must be a number >= 0, got ${String(v)}`);
  return v;
}

export function validateFaultSpec(spec: FaultSpec): FaultSpec {
  if (typeof spec !== 'object' || spec === null)
    throw new InvalidArgumentError('faults', 'spec must be an object');
  const out: FaultSpec = {};
  if (spec.latencyMs !== undefined) {
    if (Array.isArray(spec.latencyMs)) {
      const [min, max] = spec.latencyMs;
      nonNegative('latencyMs', min);
      nonNegative('latencyMs', max);
      if (max < min) throw new InvalidArgumentError('latencyMs', `range max ${max} < min ${min}`);
      out.latencyMs = [min, max];
    } else out.latencyMs = nonNegative('latencyMs', spec.latencyMs);
  }
  if (spec.errorCode !== undefined) {
    if (!Number.isInteger(spec.errorCode))
      throw new InvalidArgumentError('errorCode', `must be an integer, got ${String(spec.errorCode)}`);
    out.errorCode = spec.errorCode;
  }
  if (spec.errorRate !== undefined) {
    const rate = nonNegative('errorRate', spec.errorRate);
    if (rate > 1) throw new InvalidArgumentError('errorRate', `must be in [0, 1], got ${rate}`);
    out.errorRate = rate;
  }
  if (spec.hang) out.hang = true;
  if (spec.dropConnections) out.dropConnections = true;
  if (spec.refuseConnections) out.refuseConnections = true;
  if (spec.requestCodes !== undefined) {
    if (!Array.isArray(spec.requestCodes) || !spec.requestCodes.every((c) => Number.isInteger(c))) {
      throw new InvalidArgumentError('requestCodes', 'must be an array of integers');
    }
    out.requestCodes = [...spec.requestCodes];
  }
  if (spec.durationMs !== undefined) out.durationMs = nonNegative('durationMs', spec.durationMs);
  if (spec.diskFull) out.diskFull = true;
  return out;
}

/** extFields of a 9901 request → spec (`clear=true` → undefined). Numbers as text; latency "50" or "10-100". */
export function faultSpecFromExtFields(ext: Readonly<Record<string, string>>): FaultSpec | undefined {
  if (ext.clear === 'true') return undefined;
  const num = (field: string, raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(n))
      throw new InvalidArgumentError(field, `not a number: ${raw}`);
    return n;
  };
  const spec: FaultSpec = {};
  if (ext.latencyMs !== undefined) {
    const m = /^\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*$/.exec(ext.latencyMs);
    spec.latencyMs = m ? [Number(m[1]), Number(m[2])] : num('latencyMs', ext.latencyMs);
  }
  if (ext.errorCode !== undefined) spec.errorCode = num('errorCode', ext.errorCode);
  if (ext.errorRate !== undefined) spec.errorRate = num('errorRate', ext.errorRate);
  if (ext.hang === 'true') spec.hang = true;
  if (ext.dropConnections === 'true') spec.dropConnections = true;
  if (ext.refuseConnections === 'true') spec.refuseConnections = true;
  if (ext.requestCodes !== undefined)
    spec.requestCodes = ext.requestCodes.split(',').map((s) => num('requestCodes', s));
  if (ext.durationMs !== undefined) spec.durationMs = num('durationMs', ext.durationMs);
  if (ext.diskFull === 'true') spec.diskFull = true;
  return validateFaultSpec(spec);
}

/** spec → extFields of a 9901 request (the inverse of `faultSpecFromExtFields`). */
export function faultSpecToExtFields(spec: FaultSpec | undefined): Record<string, string> {
  if (spec === undefined) return { clear: 'true' };
  const ext: Record<string, string> = {};
  if (spec.latencyMs !== undefined)
    ext.latencyMs = Array.isArray(spec.latencyMs)
      ? `${spec.latencyMs[0]}-${spec.latencyMs[1]}`
      : String(spec.latencyMs);
  if (spec.errorCode !== undefined) ext.errorCode = String(spec.errorCode);
  if (spec.errorRate !== undefined) ext.errorRate = String(spec.errorRate);
  if (spec.hang) ext.hang = 'true';
  if (spec.dropConnections) ext.dropConnections = 'true';
  if (spec.refuseConnections) ext.refuseConnections = 'true';
  if (spec.requestCodes !== undefined) ext.requestCodes = spec.requestCodes.join(',');
  if (spec.durationMs !== undefined) ext.durationMs = String(spec.durationMs);
  if (spec.diskFull) ext.diskFull = 'true';
  return ext;
}

export class FaultSwitchboard {
  private spec: FaultSpec = {};
  private expiry: NodeJS.Timeout | undefined;
  private readonly hung = new Set<() => void>();
  private readonly listeners = new Set<(spec: FaultSpec) => void>();

  /** Replaces the active fault. */
  set(spec: FaultSpec): void {
    this.spec = validateFaultSpec(spec);
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    if (this.spec.durationMs !== undefined) {
      this.expiry = setTimeout(() => this.clear(), this.spec.durationMs);
      this.expiry.unref();
    }
    if (!this.spec.hang) this.releaseHung();
    for (const l of this.listeners) l(this.spec);
  }

  clear(): void {
    this.set({});
  }

  current(): FaultSpec {
    return { ...this.spec, ...(this.spec.requestCodes ? { requestCodes: [...this.spec.requestCodes] } : {}) };
  }

  get refusing(): boolean {
    return this.spec.refuseConnections === true;
  }

  /** Called with the new spec after each change. */
  onChange(listener: (spec: FaultSpec) => void): void {
    this.listeners.add(listener);
  }

  /** What to do with a request of `code`. */
  decide(code: number): FaultDecision {
    const s = this.spec;
    const codes = s.requestCodes ?? SEND_REQUEST_CODES;
    if (!codes.includes(code)) return { kind: 'none', latencyMs: 0 };
    let latencyMs = 0;
    if (Array.isArray(s.latencyMs))
      latencyMs = s.latencyMs[0] + Math.random() * (s.latencyMs[1] - s.latencyMs[0]);
    else if (s.latencyMs !== undefined) latencyMs = s.latencyMs;
    if (s.hang) return { kind: 'hang', latencyMs };
    if (s.dropConnections) return { kind: 'drop', latencyMs };
    if (s.errorCode !== undefined && Math.random() < (s.errorRate ?? 1)) {
      return {
        kind: 'error',
        code: s.errorCode,
        afterStore: STORED_THEN_ANSWERED_CODES.has(s.errorCode),
        latencyMs,
      };
    }
    return { kind: 'none', latencyMs };
  }

  /** A promise that settles (with nothing) only when the hang is lifted or the broker stops. */
  hangUntilReleased(): Promise<undefined> {
    return new Promise((resolve) => {
      this.hung.add(() => resolve(undefined));
    });
  }

  releaseHung(): void {
    const all = [...this.hung];
    this.hung.clear();
    for (const release of all) release();
  }

  /** Broker stop: faults do not outlive the broker run they were set in. */
  dispose(): void {
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.spec = {};
    this.releaseHung();
    this.listeners.clear();
  }
}
