/**
 * [5.x] Timer messages on the producer side (docs/producer.md §3.2–§3.4):
 * - `deliverAt` (epoch ms) → TIMER_DELIVER_MS, `deliverAfterMs` → TIMER_DELAY_MS, checked against
 *   5.x's limit (`timerMaxDelaySec`, 3 days by default) before anything is sent;
 * - a 4.9 broker ignores TIMER_* and hands the message to consumers at once, so before the first
 *   timer message goes to a broker it is asked once with GET_BROKER_CONFIG. The response's remoting
 *   version tells 4.9 (< V5_0_0: no timer wheel, whatever its config lists) from 5.x, whose config
 *   says `timerWheelEnable` and its own `timerMaxDelaySec`; a refused config (ACL) leaves the
 *   version to decide. The embedded broker, versioned 4.9.7, says `rocketmqTsTimerWheel=true`. A
 *   broker that cannot honour the timer fails the send with TimerNotSupportedError before the
 *   message is written.
 */
import { InvalidArgumentError, TimerNotSupportedError } from '../errors.js';
import { MQVersion, ResponseCode } from '../protocol/codes.js';
import { createRequest, type CommandDefaults, type RemotingCommand } from '../protocol/command.js';
import { EMBEDDED_TIMER_KEY } from '../protocol/headers/admin.js';
import { GetBrokerConfig } from '../protocol/headers/broker-admin.js';
import { PropertyKey } from '../protocol/message/properties.js';

/** 5.x `timerMaxDelaySec` default (3 days), in ms. */
export const DEFAULT_TIMER_MAX_DELAY_MS = 259_200 * 1000;

/** The timer property of one message, and its absolute deliver time for the limit checks. */
export interface TimerProperty {
  key: string;
  value: string;
  deliverAt: number;
}

/** Validates `deliverAt` / `deliverAfterMs` of a message; undefined when it has neither. */
export function timerProperty(
  msg: { deliverAt?: unknown; deliverAfterMs?: unknown; delayTimeLevel?: unknown },
  field: string,
  now: number,
): TimerProperty | undefined {
  const { deliverAt, deliverAfterMs } = msg;
  if (deliverAt === undefined && deliverAfterMs === undefined) return undefined;
  if (deliverAt !== undefined && deliverAfterMs !== undefined)
    throw new InvalidArgumentError(`${field}deliverAt`, 'give deliverAt or deliverAfterMs, not both');
  if (msg.delayTimeLevel !== undefined && msg.delayTimeLevel !== 0) {
    throw new InvalidArgumentError(
      `${field}delayTimeLevel`,
      'cannot be combined with deliverAt / deliverAfterMs (the broker would drop the timer)',
    );
  }
  if (deliverAfterMs !== undefined) {
    const ms = deliverAfterMs;
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 0)
      throw new InvalidArgumentError(`${field}deliverAfterMs`, 'must be a non-negative integer of ms');
    checkLimit(`${field}deliverAfterMs`, ms, DEFAULT_TIMER_MAX_DELAY_MS);
    return { key: PropertyKey.TIMER_DELAY_MS, value: String(ms), deliverAt: now + ms };
  }
  const at = deliverAt instanceof Date ? deliverAt.getTime() : deliverAt;
  if (typeof at !== 'number' || !Number.isSafeInteger(at) || at < 0)
    throw new InvalidArgumentError(`${field}deliverAt`, 'must be an epoch time in ms (integer) or a Date');
  checkLimit(`${field}deliverAt`, at - now, DEFAULT_TIMER_MAX_DELAY_MS);
  return { key: PropertyKey.TIMER_DELIVER_MS, value: String(at), deliverAt: at };
}

function checkLimit(field: string, delayMs: number, maxMs: number): void {
  if (delayMs > maxMs) {
    throw new InvalidArgumentError(
      field,
      `is ${delayMs} ms ahead, beyond the broker's timerMaxDelaySec (${maxMs / 1000} s)`,
    );
  }
}

interface BrokerTimerInfo {
  supported: boolean;
  reason: string;
  maxDelayMs: number;
}

type Request = (address: string, cmd: RemotingCommand, timeoutMs: number) => Promise<RemotingCommand>;

/** `key=value` lines of Java `Properties` text (no escapes needed for the keys read here). */
function readProperties(body: Uint8Array | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (body === undefined) return out;
  for (const line of Buffer.from(body).toString('utf8').split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq > 0 && !line.startsWith('#')) out.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  return out;
}

/** Per broker address, whether it honours timer messages (asked once, then cached). */
export class TimerSupport {
  private readonly known = new Map<string, BrokerTimerInfo>();
  private readonly asking = new Map<string, Promise<BrokerTimerInfo>>();

  constructor(
    private readonly request: Request,
    private readonly commandDefaults: Readonly<CommandDefaults>,
  ) {}

  /**
   * Resolves when `address` honours a timer due at `deliverAt`; rejects with
   * TimerNotSupportedError, InvalidArgumentError (beyond this broker's own limit) or the
   * transport error of the question (retriable as any send error).
   */
  check(
    brokerName: string,
    address: string,
    deliverAt: number,
    timeoutMs: number,
  ): Promise<void> | undefined {
    const info = this.known.get(address);
    if (info !== undefined) {
      this.verdict(info, brokerName, address, deliverAt);
      return undefined;
    }
    let pending = this.asking.get(address);
    if (pending === undefined) {
      pending = this.ask(address, timeoutMs).finally(() => this.asking.delete(address));
      this.asking.set(address, pending);
    }
    return pending.then((i) => this.verdict(i, brokerName, address, deliverAt));
  }

  private verdict(info: BrokerTimerInfo, brokerName: string, address: string, deliverAt: number): void {
    if (!info.supported) throw new TimerNotSupportedError(brokerName, address, info.reason);
    checkLimit('deliverAt', deliverAt - Date.now(), info.maxDelayMs);
  }

  private async ask(address: string, timeoutMs: number): Promise<BrokerTimerInfo> {
    const response = await this.request(
      address,
      createRequest(GetBrokerConfig.code, undefined, undefined, this.commandDefaults),
      timeoutMs,
    );
    const config =
      response.code === ResponseCode.SUCCESS ? readProperties(response.body) : new Map<string, string>();
    const maxSec = Number(config.get('timerMaxDelaySec'));
    const maxDelayMs = Number.isFinite(maxSec) && maxSec > 0 ? maxSec * 1000 : DEFAULT_TIMER_MAX_DELAY_MS;
    let info: BrokerTimerInfo;
    if (config.get(EMBEDDED_TIMER_KEY) === 'true') {
      info = { supported: true, reason: '', maxDelayMs };
    } else if (response.version < MQVersion.V5_0_0) {
      // A 4.9 broker lists whatever its config file holds, timerWheelEnable included, and still
      // has no timer wheel: its version decides.
      info = { supported: false, reason: `its version ${response.version} is before 5.0.0`, maxDelayMs };
    } else if (config.get('timerWheelEnable') === 'false') {
      info = { supported: false, reason: 'timerWheelEnable=false', maxDelayMs };
    } else {
      info = { supported: true, reason: '', maxDelayMs };
    }
    this.known.set(address, info);
    return info;
  }
}
