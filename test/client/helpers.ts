/** Client test fixtures: an instance config and a scripted NameServer. */
import { ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../src/protocol/command.js';
import { encodeTopicRouteData, type TopicRouteData } from '../../src/protocol/headers/route.js';
import { RemotingServer } from '../../src/remoting/server.js';
import type { ClientInstanceConfig } from '../../src/client/client-instance.js';
import { silentLogger } from '../../src/observability/logger.js';

export function instanceConfig(
  namesrvAddr: string[],
  over: Partial<ClientInstanceConfig> = {},
): ClientInstanceConfig {
  return {
    clientId: '127.0.0.1@test',
    namesrvAddr,
    namespace: undefined,
    language: 'JAVA',
    mqClientApiTimeout: 1000,
    pollNameServerInterval: 30000,
    heartbeatBrokerInterval: 30000,
    createTopicKey: 'TBW102',
    defaultTopicQueueNums: 4,
    logger: silentLogger,
    ...over,
  };
}

/** What the fake NameServer does for a topic: a route, TOPIC_NOT_EXIST (undefined) or never answer. */
export type RouteAnswer = TopicRouteData | undefined | 'hang';

export interface FakeNameServer {
  server: RemotingServer;
  address: string;
  /** Every GET_ROUTEINFO_BY_TOPIC received: topic and arrival time. */
  requests: { topic: string; at: number }[];
  close(): Promise<void>;
}

export async function fakeNameServer(answer: (topic: string) => RouteAnswer): Promise<FakeNameServer> {
  const server = new RemotingServer();
  const requests: { topic: string; at: number }[] = [];
  server.setDefaultProcessor((req): Promise<RemotingCommand> | RemotingCommand => {
    const topic = req.extFields?.['topic'] ?? '';
    requests.push({ topic, at: Date.now() });
    const a = answer(topic);
    if (a === 'hang') return new Promise<RemotingCommand>(() => undefined);
    if (a === undefined)
      return createResponse(
        req,
        ResponseCode.TOPIC_NOT_EXIST,
        `No topic route info in name server for the topic: ${topic}`,
      );
    return createResponse(req, ResponseCode.SUCCESS, undefined, undefined, encodeTopicRouteData(a));
  });
  await server.listen();
  return { server, address: server.address, requests, close: () => server.close() };
}
