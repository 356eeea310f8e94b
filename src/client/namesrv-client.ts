/**
 * Requests to the NameServers with failover: the client sticks to one NameServer (chosen at
 * random, as Java does) and moves to the next when it fails to answer; the caller's timeout is
 * shared across the NameServers tried.
 */
import { responseError } from './access-denied.js';
import { ConnectError, ConnectionClosedError, TimeoutError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { RequestCode, ResponseCode } from '../protocol/codes.js';
import { createRequest, type CommandDefaults, type RemotingCommand } from '../protocol/command.js';
import { GetBrokerClusterInfo, parseClusterInfo, type ClusterInfo } from '../protocol/headers/register.js';
import { GetRouteInfoByTopic, parseTopicRouteData, type TopicRouteData } from '../protocol/headers/route.js';
import type { ConnectionPool } from '../remoting/pool.js';
import type { Deadline } from './deadline.js';

export class NamesrvClient {
  private current: number;

  constructor(
    readonly addresses: readonly string[],
    private readonly pool: ConnectionPool,
    private readonly defaults: Readonly<CommandDefaults>,
    private readonly logger: Logger,
    /** First NameServer to use; random (as Java) when absent. */
    startIndex?: number,
  ) {
    this.current =
      startIndex === undefined
        ? Math.floor(Math.random() * addresses.length)
        : ((startIndex % addresses.length) + addresses.length) % addresses.length;
  }

  /** The NameServer currently in use. */
  get currentAddress(): string {
    return this.addresses[this.current % this.addresses.length] as string;
  }

  /** Sends `build()` to the current NameServer, failing over to the others within `deadline`. */
  async request(build: () => RemotingCommand, deadline: Deadline): Promise<RemotingCommand> {
    const n = this.addresses.length;
    let lastError: unknown;
    for (let k = 0; k < n; k++) {
      const remaining = deadline.remaining();
      if (remaining <= 0) break;
      const index = (this.current + k) % n;
      const address = this.addresses[index] as string;
      // Leave time for the NameServers not tried yet.
      const budget = k === n - 1 ? remaining : Math.max(1, Math.floor(remaining / (n - k)));
      try {
        const response = await this.pool.request(address, build(), budget);
        if (index !== this.current) {
          this.logger.info('switched NameServer', { from: this.currentAddress, to: address });
          this.current = index;
        }
        return response;
      } catch (err) {
        lastError = err;
        if (!(
          err instanceof ConnectError ||
          err instanceof TimeoutError ||
          err instanceof ConnectionClosedError
        ))
          throw err;
        this.logger.warn('NameServer request failed', { address, error: err.message });
      }
    }
    throw lastError ?? new TimeoutError(this.currentAddress, RequestCode.GET_ROUTEINFO_BY_TOPIC, 0);
  }

  /** GET_ROUTEINFO_BY_TOPIC; undefined when the NameServer answers TOPIC_NOT_EXIST. */
  async getRouteInfo(topic: string, deadline: Deadline): Promise<TopicRouteData | undefined> {
    const response = await this.request(
      () =>
        createRequest(
          GetRouteInfoByTopic.code,
          GetRouteInfoByTopic.encode({ topic }),
          undefined,
          this.defaults,
        ),
      deadline,
    );
    if (response.code === ResponseCode.TOPIC_NOT_EXIST) return undefined;
    return parseTopicRouteData(this.successBody(response));
  }

  /** GET_BROKER_CLUSTER_INFO: every cluster and broker the NameServer knows. */
  async getClusterInfo(deadline: Deadline): Promise<ClusterInfo> {
    const response = await this.request(
      () => createRequest(GetBrokerClusterInfo.code, undefined, undefined, this.defaults),
      deadline,
    );
    return parseClusterInfo(this.successBody(response));
  }

  private successBody(response: RemotingCommand): Uint8Array {
    if (response.code !== ResponseCode.SUCCESS || response.body === undefined) {
      throw responseError(response, this.currentAddress);
    }
    return response.body;
  }
}
