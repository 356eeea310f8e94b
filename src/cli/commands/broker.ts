import { InvalidArgumentError } from '../../errors.js';
import { readPem, SERVER_SECURITY_FLAGS, SERVER_SECURITY_HELP, serverSecurity } from '../security-flags.js';
import { consoleLogger } from '../../observability/logger.js';
import { Broker } from '../../server/broker/broker.js';
import type { CliCommand } from '../command.js';
import { parseFlags, parsePort, requiredFlag } from '../flags.js';
import { listenOn, untilSignal } from '../serving.js';

export function parseFlush(raw: string | undefined): 'sync' | 'async' {
  if (raw === undefined || raw === 'async') return 'async';
  if (raw === 'sync') return 'sync';
  throw new InvalidArgumentError('--flush', `must be sync or async, got ${raw}`);
}

const FLAGS = {
  name: { type: 'string' },
  namesrv: { type: 'string' },
  port: { type: 'string' },
  'data-dir': { type: 'string' },
  cluster: { type: 'string' },
  flush: { type: 'string' },
  'fault-injection': { type: 'boolean' },
  'enable-topic-message-type-check': { type: 'boolean' },
  'namesrv-tls-ca': { type: 'string' },
  ...SERVER_SECURITY_FLAGS,
} as const;

export const brokerCommand: CliCommand = {
  path: ['broker'],
  summary: 'Run an embedded broker',
  help: `Usage: rocketmq-ts broker --namesrv HOST:PORT --data-dir D [--name broker-a] [--port P]
                         [--cluster C] [--flush sync|async] [--fault-injection]
                         [--enable-topic-message-type-check] [--namesrv-tls-ca FILE] [--verbose]

Runs one master broker that registers with the NameServer(s), until SIGINT/SIGTERM.

Options:
${SERVER_SECURITY_HELP}
  --namesrv-tls-ca FILE
                     with --tls-mode enforcing: verify the NameServers' certificates against
                     this PEM CA (Java tls.client.authServer); by default any is trusted, as Java
  --name N           broker name (default broker-a)
  --namesrv A        NameServer address(es), ';'-separated (required)
  --port P           TCP port; 0 picks a free one (default 10911)
  --data-dir D       store root: commit log, queues, config (required)
  --cluster C        cluster name (default DefaultCluster)
  --flush MODE       sync: acknowledge a send only after fsync; async (default)
  --fault-injection  accept fault control (rocketmq-ts fault, request code 9901)
  --enable-topic-message-type-check
                     [5.x] refuse a message its topic's message.type does not accept, as the
                     5.x Proxy does (MESSAGE_ILLEGAL); off by default, as on Apache's brokers
  --verbose          log to stderr
Prints "broker NAME listening on HOST:PORT" once registered.`,
  flags: FLAGS,
  hostsBrokers: true,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = requiredFlag('--namesrv', values.namesrv);
    const dataDir = requiredFlag('--data-dir', values['data-dir']);
    const broker = new Broker({
      brokerName: values.name ?? 'broker-a',
      namesrvAddr: namesrv,
      listenPort: parsePort('--port', values.port, 10911),
      storePathRootDir: dataDir,
      brokerClusterName: values.cluster ?? 'DefaultCluster',
      flushDiskType: parseFlush(values.flush) === 'sync' ? 'SYNC_FLUSH' : 'ASYNC_FLUSH',
      faultInjection: values['fault-injection'] ?? false,
      enableTopicMessageTypeCheck: values['enable-topic-message-type-check'] ?? false,
      ...serverSecurity(values),
      ...(values['namesrv-tls-ca'] !== undefined
        ? { namesrvTlsCa: readPem('--namesrv-tls-ca', values['namesrv-tls-ca']) }
        : {}),
      ...(values.verbose ? { logger: consoleLogger(`broker:${values.name ?? 'broker-a'}`) } : {}),
    });
    const addr = await listenOn('--port', () => broker.start());
    console.log(`broker ${broker.options.brokerName} listening on ${addr}`);
    await untilSignal();
    await broker.stop();
    return 0;
  },
};
