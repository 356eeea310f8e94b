/**
 * rocketmq-ts' first names for three mqadmin commands, kept as aliases: `topic create` is
 * `admin updateTopic`, `cluster-info` is `admin clusterList`, `route` is `admin topicRoute -l`.
 * Each runs its twin's Admin call and prints its twin's output; `--json` keeps the shape these
 * commands printed before (the NameServer's cluster-info and route bodies), rebuilt from the
 * Admin result, so scripts reading them go on working.
 */
import type { ClusterInfoResult, TopicRouteResult } from '../../../admin/types.js';
import { clusterListOutput } from './cluster.js';
import { defineAdminCommand, intWord, need } from './define.js';
import {
  createTopicOutput,
  routeTable,
  TYPED_TOPIC_DOCS,
  TYPED_TOPIC_FLAGS,
  typedTopicFields,
} from './topic.js';

export const topicCreateCommand = defineAdminCommand({
  name: 'updateTopic',
  path: ['topic', 'create'],
  summary: 'Create or update a topic on every master broker (alias of admin updateTopic)',
  description: `Sends UPDATE_AND_CREATE_TOPIC to every master broker the NameServer lists (only those of
cluster C with --cluster), each with --queues read and write queues. Prints what admin updateTopic prints.`,
  flags: {
    topic: { type: 'string', short: 't' },
    queues: { type: 'string', short: 'q' },
    cluster: { type: 'string', short: 'c' },
    perm: { type: 'string', short: 'p' },
    ...TYPED_TOPIC_FLAGS,
  },
  docs: {
    topic: ['T', 'topic name (required)'],
    queues: ['Q', 'read and write queues per broker (default 8)'],
    cluster: ['C', 'only the masters of this cluster (default: every cluster)'],
    perm: ['P', 'permission: 2 write, 4 read, 6 both (default 6)'],
    ...TYPED_TOPIC_DOCS,
  },
  async run(admin, values) {
    const topic = need('topic', values.topic);
    const queues = intWord('queues', values.queues, 8, 1, 1024);
    const perm = intWord('perm', values.perm, 6, 0, 7);
    const clusters =
      values.cluster !== undefined ? [values.cluster] : Object.keys((await admin.clusterInfo()).clusters);
    const typed = typedTopicFields(values);
    const order = typed.messageType === 'FIFO';
    const request = { topic, readQueues: queues, writeQueues: queues, perm, order, ...typed };
    return createTopicOutput(admin, request, clusters);
  },
});

/** The NameServer's GET_BROKER_CLUSTER_INFO body, as `cluster-info --json` printed it. */
function clusterInfoBody(info: ClusterInfoResult): unknown {
  const brokerAddrTable: Record<
    string,
    { cluster: string; brokerName: string; brokerAddrs: Record<string, string> }
  > = {};
  for (const b of info.brokers) {
    const entry = (brokerAddrTable[b.brokerName] ??= {
      cluster: b.cluster,
      brokerName: b.brokerName,
      brokerAddrs: {},
    });
    entry.brokerAddrs[String(b.brokerId)] = b.address;
  }
  return { brokerAddrTable, clusterAddrTable: info.clusters };
}

export const clusterInfoCommand = defineAdminCommand({
  name: 'clusterList',
  path: ['cluster-info'],
  summary: 'List the clusters and brokers a NameServer knows (alias of admin clusterList)',
  description: `Prints what admin clusterList prints; --json prints the NameServer's cluster info
({brokerAddrTable, clusterAddrTable}).`,
  flags: {},
  docs: {},
  async run(admin, values) {
    if (values.json === true) return { json: clusterInfoBody(await admin.clusterInfo()) };
    return clusterListOutput(admin, false);
  },
});

/** The NameServer's GET_ROUTEINFO_BY_TOPIC body, as `route --json` printed it. */
function routeBody(route: TopicRouteResult): unknown {
  return {
    brokerDatas: route.brokers.map((b) => ({
      cluster: b.cluster,
      brokerName: b.brokerName,
      brokerAddrs: b.addresses,
    })),
    queueDatas: route.queues,
  };
}

export const routeCommand = defineAdminCommand({
  name: 'topicRoute',
  path: ['route'],
  summary: "Print a topic's route: brokers, addresses, queues and permissions (alias of admin topicRoute -l)",
  description: `Prints what admin topicRoute -l prints; --json prints the NameServer's route
({brokerDatas, queueDatas}).`,
  flags: { topic: { type: 'string', short: 't' } },
  docs: { topic: ['T', 'topic name (required)'] },
  async run(admin, values) {
    const route = await admin.topicRoute(need('topic', values.topic));
    return { json: routeBody(route), tables: [routeTable(route)] };
  },
});
