import { Deadline } from '../../client/deadline.js';
import {
  connectionPoolOptions,
  resolveClientConnection,
  type ClientConnectionOptions,
} from '../../client/connection-options.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { NamesrvClient } from '../../client/namesrv-client.js';
import { silentLogger } from '../../observability/logger.js';
import { DEFAULT_COMMAND_DEFAULTS } from '../../protocol/command.js';
import type { ClusterInfo } from '../../protocol/headers/register.js';
import { ConnectionPool } from '../../remoting/pool.js';
import type { CliCommand } from '../command.js';
import { parseFlags, requiredFlag } from '../flags.js';

/** GET_BROKER_CLUSTER_INFO from one NameServer. */
export async function fetchClusterInfo(
  namesrv: string,
  timeoutMs = 3000,
  security: ClientConnectionOptions = {},
): Promise<ClusterInfo> {
  const pool = new ConnectionPool({
    connectTimeoutMs: timeoutMs,
    ...connectionPoolOptions(resolveClientConnection(security)),
  });
  try {
    const client = new NamesrvClient([namesrv], pool, DEFAULT_COMMAND_DEFAULTS, silentLogger, 0);
    return await client.getClusterInfo(Deadline.after(timeoutMs));
  } finally {
    await pool.close();
  }
}

const FLAGS = { namesrv: { type: 'string' }, json: { type: 'boolean' }, ...CLIENT_SECURITY_FLAGS } as const;

export const clusterInfoCommand: CliCommand = {
  path: ['cluster-info'],
  summary: 'List the clusters and brokers a NameServer knows',
  help: `Usage: rocketmq-ts cluster-info --namesrv HOST:PORT [--json]

Asks the NameServer for GET_BROKER_CLUSTER_INFO and prints one line per broker:
cluster, broker name, broker id (0 = master) and address.

Options:
${CLIENT_SECURITY_HELP}
  --namesrv A   NameServer address (required)
  --json        print the raw cluster info as JSON`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = requiredFlag('--namesrv', values.namesrv);
    const info = await fetchClusterInfo(namesrv, 3000, clientSecurity(values));
    if (values.json) {
      console.log(JSON.stringify(info));
      return 0;
    }
    const rows: string[][] = [['CLUSTER', 'BROKER', 'ID', 'ADDRESS']];
    for (const [cluster, names] of Object.entries(info.clusterAddrTable ?? {})) {
      for (const name of names) {
        const addrs = info.brokerAddrTable?.[name]?.brokerAddrs ?? {};
        for (const [id, addr] of Object.entries(addrs)) rows.push([cluster, name, id, addr]);
      }
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
    for (const r of rows)
      console.log(
        r
          .map((c, i) => c.padEnd(widths[i] ?? 0))
          .join('  ')
          .trimEnd(),
      );
    return 0;
  },
};
