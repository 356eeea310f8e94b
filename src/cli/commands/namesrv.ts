import { consoleLogger } from '../../observability/logger.js';
import { SERVER_TLS_FLAGS, SERVER_TLS_HELP, serverSecurity } from '../security-flags.js';
import { NameServer } from '../../server/namesrv/namesrv.js';
import type { CliCommand } from '../command.js';
import { intFlag, parseFlags, parsePort } from '../flags.js';
import { listenOn, untilSignal } from '../serving.js';

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'expire-ms': { type: 'string' },
  ...SERVER_TLS_FLAGS,
} as const;

export const namesrvCommand: CliCommand = {
  path: ['namesrv'],
  summary: 'Run an embedded NameServer',
  help: `Usage: rocketmq-ts namesrv [--port P] [--host H] [--expire-ms MS] [--verbose]

Runs a NameServer (brokers register here, clients look up routes) until SIGINT/SIGTERM.

Options:
${SERVER_TLS_HELP}
  --port P        TCP port to listen on; 0 picks a free one (default 9876)
  --host H        interface to bind (default 127.0.0.1)
  --expire-ms MS  drop a broker that has not registered for MS ms (default 120000)
  --verbose       log to stderr
Prints "namesrv listening on HOST:PORT" once ready.`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const expire =
      values['expire-ms'] === undefined
        ? undefined
        : intFlag('--expire-ms', values['expire-ms'], 0, 1, Number.MAX_SAFE_INTEGER);
    const namesrv = new NameServer({
      listenPort: parsePort('--port', values.port, 9876),
      host: values.host ?? '127.0.0.1',
      ...(expire !== undefined ? { brokerChannelExpiredMs: expire } : {}),
      ...serverSecurity(values),
      ...(values.verbose ? { logger: consoleLogger('namesrv') } : {}),
    });
    const addr = await listenOn('--port', () => namesrv.start());
    console.log(`namesrv listening on ${addr}`);
    await untilSignal();
    await namesrv.stop();
    return 0;
  },
};
