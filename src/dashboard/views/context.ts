/** What every page renderer gets, and the live chart they share. */
import type { Admin } from '../../admin/admin.js';
import type { UnreachableBroker } from '../../admin/types.js';
import { InvalidArgumentError } from '../../errors.js';
import { renderChart, SERIES_COLORS } from '../../charts/svg-chart.js';
import { errorText, esc } from '../html.js';
import type { LiveHub } from '../live.js';
import type { History } from '../live.js';
import type { ProducerWatch } from '../producer-watch.js';
import type { Producer } from '../../producer/producer.js';
import type { GroupModeCache } from './group-mode.js';

export interface ViewContext {
  readonly admin: Admin;
  readonly hub: LiveHub;
  /** The token every POST form carries. */
  readonly csrf: string;
  readonly historyPoints: number;
  readonly producers: ProducerWatch;
  /** The groups list's Mode column, looked up at most once per group per MODE_CACHE_MS. */
  readonly groupModes: GroupModeCache;
  /** The started producer dead letters are resent with. */
  resendProducer(): Promise<Producer>;
}

/** Query string or form values, with blanks as absent. */
export type Params = ReadonlyMap<string, string>;

/** Every value of a repeated form field (checkboxes), by params map made by `paramsOf`. */
const ALL_VALUES = new WeakMap<Params, ReadonlyMap<string, readonly string[]>>();

/** Query or form values; a repeated name keeps its first value (`allValues` has the rest). */
export function paramsOf(q: URLSearchParams): Params {
  const m = new Map<string, string>();
  const all = new Map<string, string[]>();
  for (const [k, v] of q) {
    if (!m.has(k)) m.set(k, v);
    const list = all.get(k);
    if (list) list.push(v);
    else all.set(k, [v]);
  }
  ALL_VALUES.set(m, all);
  return m;
}

/** Every non-blank value of `name` (a repeated field such as checkboxes). */
export function allValues(p: Params, name: string): string[] {
  const values = ALL_VALUES.get(p)?.get(name) ?? (p.has(name) ? [p.get(name)!] : []);
  return values.map((v) => v.trim()).filter((v) => v !== '');
}

/** A page cursor (per-queue offsets) as one URL-safe token. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The cursor a page link carried; InvalidArgumentError when it is not one. */
export function decodeCursor<T>(p: Params, name: string, check: (v: unknown) => v is T): T | undefined {
  const raw = param(p, name);
  if (raw === undefined) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (!check(v))
    throw new InvalidArgumentError(name, 'is not a page cursor of this page: start again from the form');
  return v;
}

export function param(p: Params, name: string): string | undefined {
  const v = p.get(name)?.trim();
  return v === undefined || v === '' ? undefined : v;
}

/** A value that must be there; InvalidArgumentError naming the field otherwise. */
export function requiredParam(p: Params, name: string): string {
  const v = param(p, name);
  if (v === undefined) throw new InvalidArgumentError(name, 'is required');
  return v;
}

/** An optional integer in `min..max`, `fallback` when blank. */
export function intParam(p: Params, name: string, fallback: number, min: number, max: number): number {
  const raw = param(p, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(name, `must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}

/** A line chart of some series of a History, as inline SVG (the demo report's chart code). */
export function historyChart(
  title: string,
  yLabel: string,
  history: History,
  names: readonly string[],
): string {
  return renderChart({
    title,
    xLabel: 'seconds',
    yLabel,
    width: 900,
    height: 240,
    series: names.map((name, i) => ({
      name,
      color: SERIES_COLORS[i % SERIES_COLORS.length]!,
      points: history.shifted(name),
    })),
  });
}

/**
 * One line per broker a page could not reach ("down"), saying what is missing from the page
 * because of it; empty when every broker answered.
 */
export function unreachableNote(down: readonly UnreachableBroker[], missing: string): string {
  if (down.length === 0) return '';
  const items = down.map(
    (b) =>
      `<li class="down" data-broker="${esc(b.brokerName)}">Broker ${esc(b.brokerName)} (${esc(b.address)}) is down: ${esc(errorText(b.error))}. Its ${esc(missing)} are not shown.</li>`,
  );
  return `<ul class="unreachable" role="status">${items.join('')}</ul>`;
}
