import { silentLogger } from '../../observability/logger.js';
import { connectionPoolOptions, resolveClientConnection } from '../../client/connection-options.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { DEFAULT_COMMAND_DEFAULTS } from '../../protocol/command.js';
import { permToString } from '../../protocol/perm.js';
import { validateTopic } from '../../protocol/validation.js';
import { ConnectionPool } from '../../remoting/pool.js';
import { Deadline } from '../../client/deadline.js';
import { NamesrvClient } from '../../client/namesrv-client.js';
import { parseNamesrvAddr } from '../../client/client-options.js';
import type { CliCommand } from '../command.js';
import { parseFlags, requiredFlag } from '../flags.js';

const FLAGS = {
  namesrv: { type: 'string' },
  topic: { type: 'string' },
  json: { type: 'boolean' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const routeCommand: CliCommand = {
  path: ['route'],
  summary: "Print a topic's route: brokers, addresses, queues and permissions",
  help: `Usage: rocketmq-ts route --namesrv HOST:PORT --topic T [--json]

Asks the NameServer (GET_ROUTEINFO_BY_TOPIC) and prints each broker with its addresses
(id 0 = master) and its read/write queue counts and permission.

Options:
${CLIENT_SECURITY_HELP}
  --namesrv A   NameServer address(es), "h:p;h:p" (required)
  --topic T     topic (required)
  --json        print the raw route as JSON`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = requiredFlag('--namesrv', values.namesrv);
    validateTopic(values.topic, '--topic');
    const pool = new ConnectionPool(connectionPoolOptions(resolveClientConnection(clientSecurity(values))));
    try {
      const client = new NamesrvClient(
        parseNamesrvAddr(namesrv, '--namesrv'),
        pool,
        DEFAULT_COMMAND_DEFAULTS,
        silentLogger,
      );
      const route = await client.getRouteInfo(values.topic, Deadline.after(5000));
      if (route === undefined) {
        console.error(`topic ${values.topic} has no route on the NameServer`);
        return 1;
      }
      if (values.json) {
        console.log(JSON.stringify(route));
        return 0;
      }
      console.log(`topic ${values.topic}`);
      for (const bd of [...route.brokerDatas].sort((a, b) => a.brokerName.localeCompare(b.brokerName))) {
        const qd = route.queueDatas.find((q) => q.brokerName === bd.brokerName);
        const addrs = Object.entries(bd.brokerAddrs)
          .map(([id, a]) => `${id === '0' ? 'master' : `slave${id}`} ${a}`)
          .join(', ');
        const queues = qd
          ? `read ${qd.readQueueNums} write ${qd.writeQueueNums} perm ${permToString(qd.perm)} (${qd.perm})`
          : 'no queues';
        console.log(`  ${bd.brokerName} [${bd.cluster}] ${addrs}: ${queues}`);
      }
      if (route.orderTopicConf) console.log(`  orderTopicConf ${route.orderTopicConf}`);
      return 0;
    } finally {
      await pool.close();
    }
  },
};
