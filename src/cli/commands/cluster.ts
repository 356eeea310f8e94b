import { consoleLogger } from '../../observability/logger.js';
import { SERVER_SECURITY_FLAGS, SERVER_SECURITY_HELP, serverSecurity } from '../security-flags.js';
import { EmbeddedCluster } from '../../server/cluster.js';
import type { CliCommand } from '../command.js';
import { intFlag, parseFlags, parsePort } from '../flags.js';
import { parseFlush } from './broker.js';
import { listenOn, untilSignal } from '../serving.js';

const FLAGS = {
  brokers: { type: 'string' },
  'namesrv-port': { type: 'string' },
  'data-dir': { type: 'string' },
  flush: { type: 'string' },
  'fault-injection': { type: 'boolean' },
  json: { type: 'boolean' },
  ...SERVER_SECURITY_FLAGS,
} as const;

export const clusterCommand: CliCommand = {
  path: ['cluster'],
  summary: 'Run a NameServer and N brokers in one process',
  help: `Usage: rocketmq-ts cluster [--brokers N] [--namesrv-port P] [--data-dir D] [--flush sync|async]
                          [--fault-injection] [--json] [--verbose]

Starts a NameServer and N brokers (broker-a, broker-b, ...) on 127.0.0.1 and runs until
SIGINT/SIGTERM, then stops them cleanly.

Options:
${SERVER_SECURITY_HELP}
  --brokers N        number of brokers (default 2)
  --namesrv-port P   NameServer port; 0 picks a free one (default 9876)
  --data-dir D       parent folder of the brokers' stores (default: a temp dir, removed on exit)
  --flush MODE       sync or async (default async)
  --fault-injection  accept fault control on every broker (rocketmq-ts fault)
  --json             print one JSON line {"namesrv":"...","brokers":[{"name":"...","addr":"..."}]}
  --verbose          log to stderr`,
  flags: FLAGS,
  hostsBrokers: true,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const count = intFlag('--brokers', values.brokers, 2, 1, 26);
    const { acl, tls } = serverSecurity(values);
    const options = {
      brokers: count,
      brokerOptions: { ...(acl !== undefined ? { acl } : {}), ...(tls !== undefined ? { tls } : {}) },
      namesrvOptions: tls !== undefined ? { tls } : {},
      namesrvPort: parsePort('--namesrv-port', values['namesrv-port'], 9876),
      dataDir: values['data-dir'],
      flush: parseFlush(values.flush),
      faultInjection: values['fault-injection'] ?? false,
      ...(values.verbose ? { logger: consoleLogger('cluster') } : {}),
    };
    // the brokers take free ports, so only the NameServer's can be in use
    const cluster = await listenOn('--namesrv-port', () => EmbeddedCluster.start(options));
    if (values.json) {
      console.log(
        JSON.stringify({
          namesrv: cluster.namesrvAddr,
          brokers: cluster.brokers.map((b) => ({ name: b.name, addr: b.addr })),
        }),
      );
    } else {
      console.log(`namesrv ${cluster.namesrvAddr}`);
      for (const b of cluster.brokers) console.log(`${b.name} ${b.addr}`);
    }
    await untilSignal();
    await cluster.stop();
    return 0;
  },
};
