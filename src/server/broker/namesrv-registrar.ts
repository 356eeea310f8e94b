/**
 * The broker's side of NameServer registration (Java `BrokerOuterAPI`): REGISTER_BROKER with the
 * topic table to every NameServer, UNREGISTER_BROKER on shutdown.
 */
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { crc32 } from '../../protocol/message/crc32.js';
import { ConnectionPool } from '../../remoting/pool.js';
import type { PemInput } from '../../remoting/tls-server.js';
import type { Logger } from '../../observability/logger.js';
import {
  GetRouteInfoByTopic,
  parseTopicRouteData,
  type TopicRouteData,
} from '../../protocol/headers/route.js';
import {
  encodeRegisterBrokerBody,
  RegisterBroker,
  UnregisterBroker,
  type TopicConfigSerializeWrapper,
} from '../../protocol/headers/register.js';

export interface BrokerIdentity {
  clusterName: string;
  brokerName: string;
  brokerAddr: string;
  brokerId: number;
  haServerAddr: string;
}

const REGISTER_TIMEOUT_MS = 3000;

export function parseNamesrvAddrList(list: string): string[] {
  return list
    .split(/[;,]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export class NamesrvRegistrar {
  private readonly pool: ConnectionPool;

  constructor(
    private readonly logger: Logger,
    useTls = false,
    namesrvCa?: PemInput,
  ) {
    this.pool = new ConnectionPool({
      logger,
      connectTimeoutMs: REGISTER_TIMEOUT_MS,
      // Java's `useTLS` client: encrypt, no host name check, and trust any certificate unless the
      // NameServers' CA is given (`namesrvTlsCa`, Java `tls.client.authServer`). Trusting any is
      // an explicit opt-out (clients verify by default, docs/security.md §1) kept as Java's
      // default, because the NameServers are the operator's own servers.
      ...(useTls
        ? {
            tls:
              namesrvCa === undefined
                ? { rejectUnauthorized: false, checkServerIdentity: () => undefined }
                : { ca: namesrvCa, rejectUnauthorized: true, checkServerIdentity: () => undefined },
          }
        : {}),
    });
  }

  /** Registers with every NameServer in parallel; failures are logged, not thrown. Resolves to the number that accepted. */
  async registerAll(
    namesrvAddrs: readonly string[],
    id: BrokerIdentity,
    topics: TopicConfigSerializeWrapper,
  ): Promise<number> {
    const body = encodeRegisterBrokerBody({ topicConfigSerializeWrapper: topics, filterServerList: [] });
    const header = RegisterBroker.encode({
      brokerName: id.brokerName,
      brokerAddr: id.brokerAddr,
      clusterName: id.clusterName,
      haServerAddr: id.haServerAddr,
      brokerId: id.brokerId,
      compressed: false,
      bodyCrc32: crc32(body) & 0x7fffffff,
    });
    const results = await Promise.all(
      namesrvAddrs.map(async (addr) => {
        try {
          const response = await this.pool.request(
            addr,
            createRequest(RegisterBroker.code, header, body),
            REGISTER_TIMEOUT_MS,
          );
          if (response.code !== ResponseCode.SUCCESS) {
            this.logger.warn('register broker refused', {
              namesrv: addr,
              code: response.code,
              remark: response.remark,
            });
            return false;
          }
          return true;
        } catch (err) {
          this.logger.warn('register broker failed', { namesrv: addr, error: err });
          return false;
        }
      }),
    );
    return results.filter(Boolean).length;
  }

  async unregisterAll(namesrvAddrs: readonly string[], id: BrokerIdentity): Promise<void> {
    const header = UnregisterBroker.encode({
      brokerName: id.brokerName,
      brokerAddr: id.brokerAddr,
      clusterName: id.clusterName,
      brokerId: id.brokerId,
    });
    await Promise.all(
      namesrvAddrs.map(async (addr) => {
        try {
          await this.pool.request(addr, createRequest(UnregisterBroker.code, header), REGISTER_TIMEOUT_MS);
        } catch (err) {
          this.logger.warn('unregister broker failed', { namesrv: addr, error: err });
        }
      }),
    );
  }

  /**
   * The topic's route from the first NameServer that has it (Java `TopicRouteInfoManager`, which
   * QUERY_ASSIGNMENT asks for the queues of every broker of the topic); undefined when none has.
   */
  async topicRoute(namesrvAddrs: readonly string[], topic: string): Promise<TopicRouteData | undefined> {
    for (const addr of namesrvAddrs) {
      try {
        const response = await this.pool.request(
          addr,
          createRequest(GetRouteInfoByTopic.code, GetRouteInfoByTopic.encode({ topic })),
          REGISTER_TIMEOUT_MS,
        );
        if (response.code === ResponseCode.SUCCESS && response.body)
          return parseTopicRouteData(response.body);
      } catch (err) {
        this.logger.debug('topic route lookup failed', { namesrv: addr, topic, error: err });
      }
    }
    return undefined;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
