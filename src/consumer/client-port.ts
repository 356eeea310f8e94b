/**
 * What the consumer needs from the shared client core, in one narrow interface: requests to
 * brokers, the subscribe view of routes, broker addresses, heartbeats and broker→client request
 * handlers. `push-consumer.ts` builds it over a ClientInstance; tests can build it over anything.
 */
import type { MessageQueue } from '../client/route.js';
import type { CommandDefaults, RemotingCommand } from '../protocol/command.js';

export type BrokerRequestHandler = (
  request: RemotingCommand,
) => RemotingCommand | undefined | Promise<RemotingCommand | undefined>;

export interface ConsumerClient {
  readonly clientId: string;
  readonly commandDefaults: Readonly<CommandDefaults>;
  request(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<RemotingCommand>;
  oneway(address: string, cmd: RemotingCommand, timeoutMs: number): Promise<void>;
  /** Readable queues of `topic` (wire name), refreshed by the client core. */
  subscribeQueues(topic: string): Promise<MessageQueue[]>;
  /** Master address of a broker, when known. */
  masterAddress(brokerName: string): string | undefined;
  /** Heartbeat to every broker now (after a subscription or allocation change). */
  sendHeartbeatToAllBrokers(): Promise<void>;
}
