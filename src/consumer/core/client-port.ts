/**
 * What the consumer needs from the shared client core, in one narrow interface: requests to
 * brokers, the subscribe view of routes, broker addresses, heartbeats and broker→client request
 * handlers. `push/push-consumer.ts` builds it over a ClientInstance; tests can build it over anything.
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { Deadline } from '../../client/deadline.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import type { CommandDefaults, RemotingCommand } from '../../protocol/command.js';
import type { ConnectionPool } from '../../remoting/pool.js';
import type { ResolvedPushConsumerOptions } from '../push/options.js';

export interface ConsumerClient {
  readonly clientId: string;
  readonly commandDefaults: Readonly<CommandDefaults>;
  /** A pool request; `signal` for the calls an application waits on (`lag`). */
  request: ConnectionPool['request'];
  oneway(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<void>;
  /** Readable queues of `topic` (wire name), refreshed by the client core. */
  subscribeQueues(topic: string): Promise<MessageQueue[]>;
  /** Master address of a broker, when known. */
  masterAddress(brokerName: string): string | undefined;
  /**
   * brokerId → address of every known member of a broker group (master and slaves), for pulls
   * from slaves (pull-broker-selection.ts). Absent: pulls go to `masterAddress` only.
   */
  groupMembers?(brokerName: string): ReadonlyMap<number, string> | undefined;
  /** Names of every broker in the routes in use. */
  brokerNames(): string[];
  /** Heartbeat to every broker now (after a subscription or allocation change). */
  sendHeartbeatToAllBrokers(): Promise<void>;
}

/** The port over a shared ClientInstance. */
export function consumerClientOf(instance: ClientInstance, routeTimeoutMs: number): ConsumerClient {
  return {
    clientId: instance.clientId,
    commandDefaults: instance.commandDefaults,
    request: (address, cmd, timeoutMs, signal) => instance.pool.request(address, cmd, timeoutMs, signal),
    oneway: (address, cmd, timeoutMs) => instance.pool.oneway(address, cmd, timeoutMs),
    subscribeQueues: async (topic) => [
      ...(await instance.routes.subscribeQueues(topic, Deadline.after(routeTimeoutMs))),
    ],
    masterAddress: (brokerName) => instance.routes.masterAddress(brokerName),
    groupMembers: (brokerName) => instance.routes.brokerTable().get(brokerName),
    brokerNames: () => [...instance.routes.brokerTable().keys()],
    sendHeartbeatToAllBrokers: () => instance.heartbeat.sendHeartbeatToAllBrokers(),
  };
}

/** What every part of one consumer shares: the client, its options and identity. */
export interface ConsumerScope {
  readonly client: ConsumerClient;
  readonly options: ResolvedPushConsumerOptions;
  /** Group on the wire (namespace applied). */
  readonly group: string;
  readonly logger: Logger;
  readonly clustering: boolean;
  readonly orderly: boolean;
}
