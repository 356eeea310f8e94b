import type { Dashboard } from '../../dashboard/server.js';
import { isLoopbackHost, type DashboardOptions } from '../../dashboard/options.js';
import { InvalidArgumentError } from '../../errors.js';
import { consoleLogger } from '../../observability/logger.js';
import type { CliCommand } from '../command.js';
import { intFlag, namesrvFlag, parseDuration, parseFlags, parsePort } from '../flags.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { listenOn, untilSignal } from '../serving.js';

const FLAGS = {
  namesrv: { type: 'string', short: 'n' },
  port: { type: 'string' },
  host: { type: 'string' },
  user: { type: 'string' },
  password: { type: 'string' },
  refresh: { type: 'string' },
  'max-live-views': { type: 'string' },
  'max-live-streams': { type: 'string' },
  'auth-max-failures': { type: 'string' },
  'auth-lockout': { type: 'string' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

/** `--auth-lockout` in ms: a duration up to the 15 minutes the lockout is capped at. */
function lockoutMs(raw: string | undefined): number {
  if (raw === undefined) return 1000;
  const ms = Math.round(parseDuration('--auth-lockout', raw));
  if (ms < 1 || ms > 15 * 60_000) throw new InvalidArgumentError('--auth-lockout', 'must be 1ms..15m');
  return ms;
}

/** The warning printed when the dashboard listens beyond this machine. */
export function exposureWarning(host: string, withAuth: boolean): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return `warning: the dashboard listens on ${host}, reachable from other machines; it can create and delete topics and reset offsets${
    withAuth
      ? ' (basic auth is on, but over plain HTTP)'
      : ', and has NO authentication: add --user and --password'
  }`;
}

/**
 * Starts a dashboard (a busy port becomes an error naming `portFlag`), printing its URL and the
 * exposure warning; shared by `dashboard` and `demo --dashboard`.
 */
export async function startDashboard(
  options: DashboardOptions,
  say: (line: string) => void,
  warn: (line: string) => void = say,
  portFlag = '--port',
): Promise<Dashboard> {
  // loaded on use: every CLI start (each --help) would otherwise load the dashboard's pages
  const { Dashboard } = await import('../../dashboard/server.js');
  const dashboard = new Dashboard(options);
  try {
    await listenOn(portFlag, () => dashboard.start());
  } catch (err) {
    await dashboard.close();
    throw err;
  }
  const warning = exposureWarning(dashboard.options.host, dashboard.options.auth !== undefined);
  if (warning) warn(warning);
  say(`dashboard: ${dashboard.url}`);
  return dashboard;
}

export const dashboardCommand: CliCommand = {
  path: ['dashboard'],
  summary: 'Web dashboard for a cluster: brokers, topics, groups, messages, live',
  help: `Usage: rocketmq-ts dashboard --namesrv A [--port 8080] [--host 127.0.0.1] [--user U --password P]
                            [--refresh 2s] [--max-live-views 32] [--max-live-streams 256]
                            [--auth-max-failures 5] [--auth-lockout 1s] [--verbose]

Serves a web dashboard (cluster, topics, consumer groups, messages) for the cluster behind the
NameServer, using the Admin client; live figures arrive over Server-Sent Events. Every asset is
built in: it works offline. Runs until SIGINT/SIGTERM.

Options:
  -n, --namesrv A    NameServer address(es) "host:port;host:port" (default: NAMESRV_ADDR)
  --port P           HTTP port; 0 picks a free one (default 8080)
  --host H           address to listen on (default 127.0.0.1; any other prints a warning)
  --user U           require HTTP basic authentication with this user name...
  --password P       ...and this password (default env ROCKETMQ_DASHBOARD_PASSWORD)
  --refresh T        live update period: 2s, 500ms (default 2s)
  --max-live-views N pages (a group, a topic, ...) watched live at once; one more is
                     answered 503 (default 32)
  --max-live-streams N
                     open live streams at once, all pages together; one more is answered
                     429 (default 256)
  --auth-max-failures N
                     wrong passwords from one address before it is locked out (default 5)
  --auth-lockout T   the first lockout, doubling with each further failure up to 15m
                     (default 1s)
${CLIENT_SECURITY_HELP}
  --verbose          log to stderr`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = namesrvFlag(values.namesrv);
    const password = values.password ?? (process.env['ROCKETMQ_DASHBOARD_PASSWORD'] || undefined);
    if ((values.user === undefined) !== (password === undefined))
      throw new InvalidArgumentError(
        values.user === undefined ? '--user' : '--password',
        'give both --user and --password (or ROCKETMQ_DASHBOARD_PASSWORD)',
      );
    if (values.user !== undefined && values.user.includes(':'))
      throw new InvalidArgumentError('--user', 'must not contain ":"');
    const options: DashboardOptions = {
      namesrvAddr: namesrv,
      port: parsePort('--port', values.port, 8080),
      host: values.host ?? '127.0.0.1',
      refreshMs:
        values.refresh === undefined ? 2000 : Math.max(50, parseDuration('--refresh', values.refresh)),
      ...(values.user !== undefined && password !== undefined
        ? { auth: { user: values.user, password } }
        : {}),
      maxLiveViews: intFlag('--max-live-views', values['max-live-views'], 32, 1, 10_000),
      maxLiveStreams: intFlag('--max-live-streams', values['max-live-streams'], 256, 1, 100_000),
      authMaxFailures: intFlag('--auth-max-failures', values['auth-max-failures'], 5, 1, 1000),
      authLockoutMs: lockoutMs(values['auth-lockout']),
      ...clientSecurity(values),
      ...(values.verbose ? { logger: consoleLogger('dashboard') } : {}),
    };
    const dashboard = await startDashboard(
      options,
      (line) => console.log(line),
      (line) => console.error(line),
    );
    await untilSignal();
    await dashboard.close();
    return 0;
  },
};
