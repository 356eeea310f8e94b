import { BrokerResponseError, InvalidArgumentError } from '../../errors.js';
import { connectionPoolOptions, resolveClientConnection } from '../../client/connection-options.js';
import { CLIENT_SECURITY_FLAGS, CLIENT_SECURITY_HELP, clientSecurity } from '../security-flags.js';
import { ResponseCode, responseCodeName } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { UpdateAndCreateTopic } from '../../protocol/headers/admin.js';
import { validateTopic } from '../../protocol/validation.js';
import { Connection } from '../../remoting/connection.js';
import type { CliCommand } from '../command.js';
import { intFlag, parseFlags, requiredFlag } from '../flags.js';
import { fetchClusterInfo } from './cluster-info.js';

const FLAGS = {
  namesrv: { type: 'string' },
  topic: { type: 'string' },
  queues: { type: 'string' },
  cluster: { type: 'string' },
  perm: { type: 'string' },
  ...CLIENT_SECURITY_FLAGS,
} as const;

export const topicCreateCommand: CliCommand = {
  path: ['topic', 'create'],
  summary: 'Create or update a topic on every master broker of a cluster',
  help: `Usage: rocketmq-ts topic create --namesrv HOST:PORT --topic T [--queues Q] [--cluster C] [--perm 6]

Sends UPDATE_AND_CREATE_TOPIC to every master broker the NameServer lists (optionally only
those of cluster C); each broker registers the topic with the NameServer at once.

Options:
${CLIENT_SECURITY_HELP}
  --namesrv A   NameServer address (required)
  --topic T     topic name (required)
  --queues Q    read and write queues per broker (default 8)
  --cluster C   only brokers of this cluster
  --perm P      permission bits: 6 = read+write (default), 4 = read only, 2 = write only`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const namesrv = requiredFlag('--namesrv', values.namesrv);
    validateTopic(values.topic, '--topic');
    const queues = intFlag('--queues', values.queues, 8, 1, 1024);
    const perm = intFlag('--perm', values.perm, 6, 0, 15);
    const security = clientSecurity(values);
    const poolOptions = connectionPoolOptions(resolveClientConnection(security));
    const info = await fetchClusterInfo(namesrv, 3000, security);
    const targets: Array<{ name: string; addr: string }> = [];
    for (const [cluster, names] of Object.entries(info.clusterAddrTable ?? {})) {
      if (values.cluster !== undefined && cluster !== values.cluster) continue;
      for (const name of names) {
        const master = info.brokerAddrTable?.[name]?.brokerAddrs?.['0'];
        if (master) targets.push({ name, addr: master });
      }
    }
    if (targets.length === 0)
      throw new InvalidArgumentError('--namesrv', 'the NameServer knows no master broker (of that cluster)');
    const header = UpdateAndCreateTopic.encode({
      topic: values.topic,
      defaultTopic: 'TBW102',
      readQueueNums: queues,
      writeQueueNums: queues,
      perm,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    });
    for (const t of targets) {
      const conn = await Connection.connect(t.addr, poolOptions);
      try {
        const response = await conn.request(createRequest(UpdateAndCreateTopic.code, header), 5000);
        if (response.code !== ResponseCode.SUCCESS)
          throw new BrokerResponseError(
            response.code,
            responseCodeName(response.code),
            response.remark ?? '',
            t.addr,
          );
        console.log(`created ${values.topic} (${queues} queues) on ${t.name} ${t.addr}`);
      } finally {
        conn.close();
      }
    }
    return 0;
  },
};
