/**
 * The frame every `rocketmq-ts admin <command>` shares: mqadmin's command name, `-n`/`--namesrv`
 * (or NAMESRV_ADDR) and `--json`, one Admin client per run, and output as aligned tables (like
 * mqadmin's) or as the Admin result in JSON. Each command file only maps flags to one Admin call.
 */
import { Admin } from '../../../admin/admin.js';
import { InvalidArgumentError } from '../../../errors.js';
import type { CliCommand } from '../../command.js';
import { parseFlags, type FlagSpec, type FlagValues } from '../../flags.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../../security-flags.js';

export const ADMIN_FLAGS = {
  namesrv: { type: 'string', short: 'n' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_FLAGS,
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** What a command prints: `json` with --json, else its tables (header row first) and lines. */
export interface AdminOutput {
  json: unknown;
  tables?: string[][][];
  lines?: string[];
}

export interface AdminCommandSpec<F extends Readonly<Record<string, FlagSpec>>> {
  /** mqadmin's command name, e.g. `clusterList`. */
  name: string;
  /**
   * The words that run it, `['admin', name]` unless given: an older rocketmq-ts name kept as an
   * alias of an mqadmin command (`topic create` for `admin updateTopic`).
   */
  path?: readonly string[];
  summary: string;
  /** What it sends and prints (help text). */
  description: string;
  flags: F;
  /** Help line per flag: `[value name, text]`. */
  docs: { readonly [K in keyof F]: readonly [string, string] };
  run(admin: Admin, values: FlagValues<F & typeof ADMIN_FLAGS>): Promise<AdminOutput>;
}

function flagLine(name: string, spec: FlagSpec, value: string, text: string): string {
  const left = `${spec.short ? `-${spec.short}, ` : '    '}--${name}${value ? ` ${value}` : ''}`;
  return `  ${left.padEnd(26)}${text}`;
}

/** Columns padded to their widest cell, two spaces apart (mqadmin prints fixed-width columns). */
export function formatTable(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

/** JSON replacer: message bodies as UTF-8 text (Buffer#toJSON runs first, so look at the holder). */
function bodiesAsText(this: unknown, key: string, value: unknown): unknown {
  const raw = (this as Record<string, unknown>)[key];
  return Buffer.isBuffer(raw) ? raw.toString('utf8') : value;
}

function print(out: AdminOutput, json: boolean): void {
  if (json) {
    console.log(JSON.stringify(out.json, bodiesAsText, 2));
    return;
  }
  (out.tables ?? []).forEach((t, i) => {
    if (i > 0) console.log('');
    for (const line of formatTable(t)) console.log(line);
  });
  for (const line of out.lines ?? []) console.log(line);
}

export function defineAdminCommand<F extends Readonly<Record<string, FlagSpec>>>(
  spec: AdminCommandSpec<F>,
): CliCommand {
  const flags = { ...ADMIN_FLAGS, ...spec.flags };
  const docs: Record<string, readonly [string, string]> = {
    namesrv: ['A', 'NameServer address(es) "host:port;host:port" (default: NAMESRV_ADDR)'],
    json: ['', 'print the result as JSON'],
    ...(spec.docs as Record<string, readonly [string, string]>),
  };
  const usage = Object.entries(spec.flags)
    .map(([n, f]) => `[${f.short ? `-${f.short}` : `--${n}`}${docs[n]![0] ? ` ${docs[n]![0]}` : ''}]`)
    .join(' ');
  const path = spec.path ?? ['admin', spec.name];
  const help = `Usage: rocketmq-ts ${path.join(' ')} [-n A] ${usage} [--json]

${spec.description}

Options:
${Object.entries(flags)
  .filter(([n]) => !(n in CLIENT_SECURITY_FLAGS))
  .map(([n, f]) => flagLine(n, f, docs[n]![0], docs[n]![1]))
  .join('\n')}
${CLIENT_SECURITY_HELP}`;
  return {
    path,
    summary: spec.summary,
    help,
    flags,
    async run(argv) {
      const values = parseFlags(argv, flags);
      const namesrv = (values.namesrv as string | undefined) ?? process.env['NAMESRV_ADDR'];
      if (!namesrv) throw new InvalidArgumentError('--namesrv', 'is required (or set NAMESRV_ADDR)');
      const security = clientSecurity(values as FlagValues<typeof CLIENT_SECURITY_FLAGS>);
      const admin = new Admin({ namesrvAddr: namesrv, ...security });
      try {
        print(await spec.run(admin, values as FlagValues<F & typeof ADMIN_FLAGS>), values.json === true);
      } finally {
        await admin.close();
      }
      return 0;
    },
  };
}

/** A required flag's value; InvalidArgumentError naming it otherwise. */
export function need(flag: string, value: string | undefined): string {
  if (value === undefined || value === '') throw new InvalidArgumentError(`--${flag}`, 'is required');
  return value;
}

/** `true`/`false` flag values (mqadmin passes booleans as words). */
export function boolWord(flag: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new InvalidArgumentError(`--${flag}`, `expected true or false, got "${value}"`);
}

/** An integer flag value in `min..max`, `fallback` when absent. */
export function intWord(
  flag: string,
  value: string | undefined,
  fallback: number,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (value.trim() === '' || !Number.isSafeInteger(n) || n < min || n > max)
    throw new InvalidArgumentError(`--${flag}`, `must be an integer in ${min}..${max}, got "${value}"`);
  return n;
}

/** `-b` one broker or `-c` a cluster: the flags `target` reads. */
export const BROKER_OR_CLUSTER_FLAGS = {
  broker: { type: 'string', short: 'b' },
  cluster: { type: 'string', short: 'c' },
} as const satisfies Readonly<Record<string, FlagSpec>>;

/** Exactly one of `--broker` / `--cluster`: the Admin target. */
export function target(
  broker: string | undefined,
  cluster: string | undefined,
): { brokers?: string[]; cluster?: string } {
  if ((broker === undefined) === (cluster === undefined))
    throw new InvalidArgumentError('--broker', 'give exactly one of --broker or --cluster');
  return broker !== undefined ? { brokers: [broker] } : { cluster: cluster! };
}

/** mqadmin's time cells: `yyyy-MM-dd HH:mm:ss` local time, `-` for 0. */
export function timeCell(ms: number): string {
  if (!ms) return '-';
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
