import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { LatencyFaultStrategyName } from '../../producer/options.js';
import type { CliCommand } from '../command.js';
import { renderReport } from '../demo/report-html.js';
import type { RunResult } from '../demo/result.js';
import { runDemo } from '../demo/run.js';
import { LiveDisplay, renderComparison, renderSummary } from '../demo/terminal.js';
import {
  STRATEGIES,
  oneOf,
  parseDuration,
  parseFlags,
  parseNamesrv,
  parsePort,
  parsePositiveInt,
} from '../flags.js';
import type { Dashboard } from '../../dashboard/index.js';
import { startDashboard } from './dashboard.js';

const HELP = `Usage: rocketmq-ts demo [options]

A live fault-tolerance run. Starts an embedded cluster (NameServer + brokers, fault injection
on), sends at a steady rate, and injects faults into one broker on a schedule: slow (500 ms added
latency), busy (SYSTEM_BUSY), hung (never answers), killed (then restarted), with a recovery
phase after each. Shows per broker sends/s, p99, share of the traffic and isolation, live. A
consumer group of two consumes meanwhile; one member is killed (SIGKILL) at 30 % of the run and
restarted at 50 %. At the end every acknowledged message must have been consumed (exit code 1
otherwise); duplicates are counted with their causes.

Options:
  --duration <time>     run length: 30, 30s, 500ms, 2m (default 30s)
  --rate <n>            messages per second (default 500)
  --brokers <n>         brokers in the embedded cluster (default 3)
  --strategy <name>     latency fault strategy: adaptive | java-4.9 | java-5 (default adaptive)
  --compare             run all three strategies one after another (fresh cluster each) and
                        print them side by side
  --report <file>       write a self-contained HTML report with charts (e.g. run.html)
  --namesrv <host:port> use a running cluster instead; faults only if its brokers accept
                        request code 9901
  --topic <name>        topic (default: a fresh one; rocketmq-ts-demo with --namesrv)
  --max-in-flight <n>   sends in flight at most (default 256)
  --size <bytes>        message body size (default 128)
  --keep-data           keep the embedded cluster's data directory
  --plain               one status line per second instead of the live panel
  --json-summary        print one JSON line with the results on stdout (everything else on stderr)
  --dashboard           serve the web dashboard on the demo's cluster while it runs, with the
                        producer health page (http://127.0.0.1:8080/)
  --dashboard-port <p>  the dashboard's port; 0 picks a free one (default 8080)
  -h, --help            this help`;

interface DemoFlags {
  durationMs: number;
  rate: number;
  brokers: number;
  strategies: LatencyFaultStrategyName[];
  report: string | undefined;
  namesrv: string | undefined;
  topic: string | undefined;
  maxInFlight: number;
  size: number;
  keepData: boolean;
  plain: boolean;
  jsonSummary: boolean;
  dashboard: boolean;
  dashboardPort: number;
}

const DEMO_FLAGS = {
  duration: { type: 'string', default: '30s' },
  rate: { type: 'string', default: '500' },
  brokers: { type: 'string', default: '3' },
  strategy: { type: 'string', default: 'adaptive' },
  compare: { type: 'boolean', default: false },
  report: { type: 'string' },
  namesrv: { type: 'string' },
  topic: { type: 'string' },
  'max-in-flight': { type: 'string', default: '256' },
  size: { type: 'string', default: '128' },
  'keep-data': { type: 'boolean', default: false },
  plain: { type: 'boolean', default: false },
  'json-summary': { type: 'boolean', default: false },
  dashboard: { type: 'boolean', default: false },
  'dashboard-port': { type: 'string' },
} as const;

export function parseDemoFlags(argv: string[]): DemoFlags {
  const values = parseFlags(argv, DEMO_FLAGS);
  const strategy = oneOf('--strategy', values.strategy, STRATEGIES);
  return {
    durationMs: parseDuration('--duration', values.duration),
    rate: parsePositiveInt('--rate', values.rate, 100_000),
    brokers: parsePositiveInt('--brokers', values.brokers, 16),
    strategies: values.compare ? [...STRATEGIES] : [strategy],
    report: values.report,
    namesrv: values.namesrv === undefined ? undefined : parseNamesrv('--namesrv', values.namesrv),
    topic: values.topic,
    maxInFlight: parsePositiveInt('--max-in-flight', values['max-in-flight'], 100_000),
    size: parsePositiveInt('--size', values.size, 4 * 1024 * 1024),
    keepData: values['keep-data'],
    plain: values.plain,
    jsonSummary: values['json-summary'],
    dashboard: values.dashboard,
    dashboardPort: parsePort('--dashboard-port', values['dashboard-port'], 8080),
  };
}

/** The --json-summary line: numbers a script (or test) can check. */
export function jsonSummary(runs: readonly RunResult[], ok: boolean, report: string | undefined): string {
  return JSON.stringify({
    ok,
    report: report ?? null,
    runs: runs.map((r) => ({
      strategy: r.strategy,
      brokers: r.brokers,
      targetBroker: r.targetBroker ?? null,
      faultsInjected: r.faultsInjected,
      sent: r.sent,
      acknowledged: r.acknowledged,
      failed: r.failed,
      notStarted: r.skipped,
      verified: r.verification !== undefined,
      consumed: r.verification?.consumed ?? null,
      lost: r.verification?.lost ?? null,
      lostMsgIds: r.verification?.lostMsgIds ?? [],
      duplicates: r.verification?.duplicates ?? null,
      duplicateCauses: r.verification?.duplicateCauses ?? null,
      storedButFailed: r.verification?.storedButFailed ?? null,
      p50Ms: round(r.p50),
      p99Ms: round(r.p99),
      recoveryMs: Object.fromEntries(r.recovery.map((x) => [x.fault, x.ms ?? null])),
      starvedMs: r.starvedMs,
      peakOtherShare: round(r.peakOtherShare),
      phases: r.phaseStats.map((s) => ({
        name: s.phase.name,
        startMs: s.phase.startMs,
        endMs: s.phase.endMs,
        acked: s.acked,
        failed: s.failed,
        p50Ms: round(s.p50),
        p99Ms: round(s.p99),
        share: Object.fromEntries(Object.entries(s.brokers).map(([b, x]) => [b, round(x.share)])),
      })),
      notes: r.notes,
    })),
  });
}

function round(x: number): number | null {
  return Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null;
}

export const demoCommand: CliCommand = {
  path: ['demo'],
  summary: 'Live fault-tolerance run on an embedded 3-broker cluster (npm start)',
  help: HELP,
  flags: DEMO_FLAGS,
  async run(argv) {
    const flags = parseDemoFlags(argv);
    // with --json-summary stdout carries only the JSON line
    const human = flags.jsonSummary ? process.stderr : process.stdout;
    const tty = !flags.plain && human.isTTY === true && !process.env.CI;
    const say = (s: string): void => {
      human.write(`${s}\n`);
    };

    const controller = new AbortController();
    const onSigint = (): void => {
      if (controller.signal.aborted) process.exit(130); // second Ctrl-C: give up waiting
      say('\ninterrupted: stopping (Ctrl-C again to force) ...');
      controller.abort();
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint);

    const runs: RunResult[] = [];
    let dashboard: Dashboard | undefined;
    try {
      for (const strategy of flags.strategies) {
        if (controller.signal.aborted) break;
        const display = new LiveDisplay(human, tty);
        say(`\n== strategy ${strategy}: ${flags.rate} msgs/s for ${flags.durationMs / 1000} s ==`);
        const run = await runDemo({
          strategy,
          brokers: flags.brokers,
          ratePerSec: flags.rate,
          durationMs: flags.durationMs,
          namesrv: flags.namesrv,
          topic: flags.topic,
          keepData: flags.keepData,
          maxInFlight: flags.maxInFlight,
          bodySize: flags.size,
          signal: controller.signal,
          onTick: (view) => display.update(view),
          onInfo: say,
          ...(flags.dashboard
            ? {
                onStarted: async ({ namesrvAddr, producer }) => {
                  dashboard = await startDashboard(
                    { namesrvAddr, port: flags.dashboardPort },
                    say,
                    say,
                    '--dashboard-port',
                  );
                  dashboard.producers.watch(producer, strategy);
                },
              }
            : {}),
        }).finally(async () => {
          // the run's cluster is gone: so is its dashboard
          await dashboard?.close();
          dashboard = undefined;
        });
        display.done();
        runs.push(run);
        say(renderSummary(run, tty));
      }
    } finally {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
    }
    if (runs.length > 1) say(renderComparison(runs));

    let reportPath: string | undefined;
    if (flags.report && runs.length > 0) {
      reportPath = resolve(flags.report);
      await writeFile(reportPath, renderReport(runs));
      say(`\nreport written to ${reportPath}`);
    }
    const lost = runs.reduce((n, r) => n + (r.verification?.lost ?? 0), 0);
    const unverified = runs.some((r) => r.verification === undefined);
    const ok = runs.length === flags.strategies.length && lost === 0 && !unverified;
    if (flags.jsonSummary) process.stdout.write(`${jsonSummary(runs, ok, reportPath)}\n`);
    if (controller.signal.aborted) return 130;
    return ok ? 0 : 1;
  },
};
