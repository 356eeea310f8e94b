import type { MetricsServerOptions } from '../../exporter/metrics-server.js';
import { consoleLogger } from '../../observability/logger.js';
import type { CliCommand } from '../command.js';
import { namesrvFlag, parseDuration, parseFlags, parsePort } from '../flags.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { listenOn, untilSignal } from '../serving.js';

const FLAGS = {
  namesrv: { type: 'string', short: 'n' },
  port: { type: 'string' },
  host: { type: 'string' },
  'broker-timeout': { type: 'string' },
  'scrape-timeout': { type: 'string' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const exporterCommand: CliCommand = {
  path: ['exporter'],
  summary: 'Prometheus exporter for a cluster: GET /metrics (rocketmq-exporter names)',
  help: `Usage: rocketmq-ts exporter --namesrv A [--port 5557] [--host 127.0.0.1]
                           [--broker-timeout 3s] [--scrape-timeout 8s] [--verbose]

Serves GET /metrics in the Prometheus text format (0.0.4) for the cluster behind the NameServer:
broker, topic and consumer-group figures read through the Admin client on each scrape, under
rocketmq-exporter's metric names and labels (docs/observability.md §3). A broker that does
not answer within --broker-timeout is left out of that scrape and counted in
rocketmq_exporter_scrape_errors_total. No authentication: it binds loopback unless --host says
otherwise. Runs until SIGINT/SIGTERM.

Options:
  -n, --namesrv A       NameServer address(es) "host:port;host:port" (default: NAMESRV_ADDR)
  --port P              HTTP port; 0 picks a free one (default 5557)
  --host H              address to listen on (default 127.0.0.1)
  --broker-timeout T    longest wait for one broker: 3s, 500ms (default 3s)
  --scrape-timeout T    longest a scrape takes (default 8s)
${CLIENT_SECURITY_HELP}
  --verbose             log to stderr`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = namesrvFlag(values.namesrv);
    const options: MetricsServerOptions = {
      namesrvAddr: namesrv,
      port: parsePort('--port', values.port, 5557),
      host: values.host ?? '127.0.0.1',
      brokerTimeoutMs: Math.max(1, parseDuration('--broker-timeout', values['broker-timeout'] ?? '3s')),
      scrapeTimeoutMs: Math.max(1, parseDuration('--scrape-timeout', values['scrape-timeout'] ?? '8s')),
      ...clientSecurity(values),
      ...(values.verbose ? { logger: consoleLogger('exporter') } : {}),
    };
    // loaded on use, as the dashboard: `--help` of other commands does not load it
    const { MetricsServer } = await import('../../exporter/metrics-server.js');
    const server = new MetricsServer(options);
    try {
      await listenOn('--port', () => server.start());
    } catch (err) {
      await server.close();
      throw err;
    }
    console.log(`exporter: ${server.url}metrics`);
    await untilSignal();
    await server.close();
    return 0;
  },
};
