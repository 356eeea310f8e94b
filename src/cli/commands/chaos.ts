import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError } from '../../errors.js';
import { renderChaosReport } from '../chaos/report-html.js';
import { runChaos, type ChaosResult } from '../chaos/run.js';
import { mib } from '../chaos/verify.js';
import type { CliCommand } from '../command.js';
import { parseFlags, parseNamesrv, parsePositiveInt } from '../flags.js';

const HELP = `Usage: rocketmq-ts chaos [--minutes 5] [--seed N] [--rate 200] [--report chaos.html] [--json]
                         [--namesrv A --broker-pids P1,P2,...]

The chaos run: proves that no acknowledged message is lost while processes die. Starts a
NameServer and 3 brokers (sync flush) as separate processes, 2 producers and two consumer groups
(3 concurrent members, 2 orderly ones), each its own process, under steady load; then follows a
seeded schedule of faults: broker SIGKILL + restart, broker SIGSTOP/SIGCONT, consumer SIGKILL +
restart, added latency, dropped connections, SYSTEM_BUSY answers, hung sends, a full disk
(ENOSPC on append) and a NameServer restart. At the end everything is read back: every
acknowledged message consumed by both groups (0 lost), byte-identical, the orderly group in queue
order, every duplicate explained, every send settled within its timeout, every process under the
memory bound. Exits 1 on any violation, printing the seed and the event log for a replay.

Options:
  --minutes <n>        run length in minutes, fractions allowed (default 5)
  --seed <n>           fault schedule seed (default: random, printed)
  --rate <n>           messages per second over both producers (default 200)
  --report <file>      write an HTML report: faults, throughput, lag, invariants
  --json               print the result as one JSON line on stdout (the log goes to stderr)
  --namesrv <addr>     run against this running cluster (a real Apache RocketMQ one, say)
  --broker-pids <list> with --namesrv: the brokers' PIDs (comma-separated) to SIGKILL (restarted
                       from their /proc command line) and SIGSTOP
  -h, --help           this help`;

const FLAGS = {
  minutes: { type: 'string', default: '5' },
  seed: { type: 'string' },
  rate: { type: 'string', default: '200' },
  report: { type: 'string' },
  json: { type: 'boolean', default: false },
  namesrv: { type: 'string' },
  'broker-pids': { type: 'string' },
} as const;

/** Per-process memory bound of the run (Node processes: producers, consumers, embedded servers). */
export const CHAOS_MEMORY_BOUND_MIB = 512;

export function parseChaosFlags(argv: string[]): {
  durationMs: number;
  seed: number;
  rate: number;
  report: string | undefined;
  json: boolean;
  namesrv: string | undefined;
  brokerPids: number[] | undefined;
} {
  const v = parseFlags(argv, FLAGS);
  const minutes = Number(v.minutes);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
    throw new InvalidArgumentError('--minutes', `must be a number of minutes in (0, 1440], got ${v.minutes}`);
  const brokerPids = v['broker-pids']?.split(',').map((p) => parsePositiveInt('--broker-pids', p.trim()));
  if ((v.namesrv === undefined) !== (brokerPids === undefined))
    throw new InvalidArgumentError('--broker-pids', '--namesrv and --broker-pids go together');
  return {
    durationMs: Math.round(minutes * 60_000),
    seed:
      v.seed === undefined
        ? Math.floor(Math.random() * 2 ** 31)
        : parsePositiveInt('--seed', v.seed, 2 ** 32 - 1),
    rate: parsePositiveInt('--rate', v.rate, 100_000),
    report: v.report,
    json: v.json,
    namesrv: v.namesrv === undefined ? undefined : parseNamesrv('--namesrv', v.namesrv),
    brokerPids,
  };
}

/** The end-of-run summary lines. */
export function chaosSummary(r: ChaosResult): string[] {
  const v = r.verification;
  const lines = [
    `chaos run: seed ${r.seed}, ${(r.durationMs / 60_000).toFixed(2)} min, ${r.faults.length} faults injected, ${v.acknowledged} acknowledged, ${v.failed} failed sends, slowest send ${v.maxSendMs} ms (allowed ${v.settleLimitMs})`,
  ];
  for (const g of v.groups) {
    const causes = Object.entries(g.duplicateCauses)
      .filter(([, n]) => n > 0)
      .map(([c, n]) => `${n} ${c}`)
      .join('; ');
    lines.push(
      `  ${g.name}${g.orderly ? ' (orderly)' : ''}: consumed ${g.consumed} (${g.distinct} distinct), lost ${g.lost}, corrupted ${g.corrupted}, misplaced ${g.misplaced}, duplicates ${g.duplicates}${causes ? ` (${causes})` : ''}, stored although the send failed ${g.storedButFailed}${g.orderly ? `, order breaks ${g.orderViolations.length}, rewinds ${g.orderlyRewinds}` : ''}`,
    );
  }
  for (const e of r.sendErrors) lines.push(`  ${e.count} sends failed: ${e.message}`);
  lines.push(
    `  peak memory (bound ${r.memoryBoundMiB} MiB): ${r.memory.map((m) => `${m.name} ${mib(m.peakBytes)}`).join(', ')} MiB`,
  );
  return lines;
}

export const chaosCommand: CliCommand = {
  path: ['chaos'],
  summary: 'Chaos run: processes killed, frozen, slowed, disk full; proves 0 lost (npm run chaos)',
  help: HELP,
  flags: FLAGS,
  async run(argv) {
    const flags = parseChaosFlags(argv);
    const out = (s: string): void => {
      (flags.json ? process.stderr : process.stdout).write(`${s}\n`);
    };
    out(`chaos seed ${flags.seed} (replay: --seed ${flags.seed})`);
    const result = await runChaos({
      durationMs: flags.durationMs,
      seed: flags.seed,
      ratePerSec: flags.rate,
      producers: 2,
      consumers: 3,
      orderlyConsumers: 2,
      brokers: 3,
      sendTimeoutMs: 3000,
      memoryBoundMiB: CHAOS_MEMORY_BOUND_MIB,
      namesrv: flags.namesrv,
      brokerPids: flags.brokerPids,
      onInfo: out,
    });
    for (const line of chaosSummary(result)) out(line);
    if (flags.report) {
      const file = resolve(flags.report);
      await writeFile(file, renderChaosReport(result));
      out(`report: ${file}`);
    }
    const violations = result.verification.violations;
    if (flags.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    if (violations.length === 0) {
      out('all invariants hold');
      return 0;
    }
    out(`INVARIANTS VIOLATED (seed ${result.seed}):`);
    for (const v of violations) out(`  ${v}`);
    out('event log:');
    for (const e of result.events) out(`  ${(e.atMs / 1000).toFixed(1).padStart(7)} s  ${e.text}`);
    return 1;
  },
};
