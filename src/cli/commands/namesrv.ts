import { consoleLogger } from '../../observability/logger.js';
import { NameServer } from '../../server/namesrv/namesrv.js';
import type { CliCommand } from '../command.js';
import { parseFlags, parsePort } from '../flags.js';

/** Resolves on the first SIGINT or SIGTERM (servers shut down cleanly then). */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

export const namesrvCommand: CliCommand = {
  path: ['namesrv'],
  summary: 'Run an embedded NameServer',
  help: `Usage: rocketmq-ts namesrv [--port P] [--host H] [--expire-ms MS] [--verbose]

Runs a NameServer (brokers register here, clients look up routes) until SIGINT/SIGTERM.

Options:
  --port P        TCP port to listen on; 0 picks a free one (default 9876)
  --host H        interface to bind (default 127.0.0.1)
  --expire-ms MS  drop a broker that has not registered for MS ms (default 120000)
  --verbose       log to stderr
Prints "namesrv listening on HOST:PORT" once ready.`,
  async run(argv) {
    const values = parseFlags(argv, {
      port: 'string',
      host: 'string',
      'expire-ms': 'string',
      verbose: 'boolean',
    });
    const expire = values['expire-ms'] === undefined ? undefined : Number(values['expire-ms']);
    const namesrv = new NameServer({
      listenPort: parsePort('--port', values.port, 9876),
      host: values.host ?? '127.0.0.1',
      ...(expire !== undefined ? { brokerChannelExpiredMs: expire } : {}),
      ...(values.verbose ? { logger: consoleLogger('namesrv') } : {}),
    });
    const addr = await namesrv.start();
    console.log(`namesrv listening on ${addr}`);
    await untilSignal();
    await namesrv.stop();
    return 0;
  },
};
