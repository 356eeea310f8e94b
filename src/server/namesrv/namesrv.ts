/**
 * An embedded NameServer (docs/protocol.md §7): brokers register their topic tables, clients ask for
 * routes. Brokers that stop registering for `brokerChannelExpiredMs`, or whose connection closes,
 * drop out of every route.
 */
import { resolveServerTls, type ServerTlsOptions } from '../../remoting/tls-server.js';
import { RequestCode, ResponseCode } from '../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../protocol/command.js';
import { crc32 } from '../../protocol/message/crc32.js';
import { RemotingServer, validateServerLimits, type ServerLimits } from '../../remoting/server.js';
import type { Connection } from '../../remoting/connection.js';
import { silentLogger, type Logger } from '../../observability/logger.js';
import { checkInt, checkLogger, checkPositive, checkString, withDefaults } from '../../options.js';
import { parseFastjsonBytes } from '../../protocol/fastjson.js';
import { jsonBody, withOptionalFields } from '../../protocol/headers/fields.js';
import {
  dataVersionJson,
  decodeRegisterBrokerBody,
  DeleteKVConfig,
  encodeClusterInfo,
  encodeKVTable,
  GetKVConfig,
  GetKVConfigResponse,
  GetKVListByNamespace,
  ORDER_TOPIC_CONFIG_NAMESPACE,
  parseDataVersion,
  PutKVConfig,
  QueryDataVersion,
  QueryDataVersionResponse,
  RegisterBroker,
  RegisterBrokerResponse,
  UnregisterBroker,
  type RegisterBrokerBody,
} from '../../protocol/headers/register.js';
import { encodeTopicList, encodeTopicRouteData, GetRouteInfoByTopic } from '../../protocol/headers/route.js';
import { DeleteTopicInNamesrv, GetTopicsByCluster } from '../../protocol/headers/namesrv-admin.js';
import { requestHeader } from './decode-request.js';
import { RouteInfoManager } from './route-info-manager.js';

/** A broker that has no HA service leaves `haServerAddr` out. */
const RegisterBrokerRequest = withOptionalFields(RegisterBroker, 'haServerAddr');
const APPLY_TOPIC_HINT = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

export interface NameServerOptions {
  /** Interface to bind. @default '127.0.0.1' */
  host: string;
  /** TCP port; 0 picks a free one. @default 9876 */
  listenPort: number;
  /** A broker that has not registered for this long is removed. @default 120000 */
  brokerChannelExpiredMs: number;
  /** How often expired brokers are looked for. @default 10000 */
  scanNotActiveBrokerIntervalMs: number;
  /**
   * Most KV config items held (PUT_KV_CONFIG beyond it is refused). Items are keyed by client
   * input and never expire (Java keeps them until deleted); real deployments hold a handful.
   * @default 10000
   */
  maxKvConfigItems: number;
  /** Connection, frame, idle and slow-reader limits of its server (Java defaults). @default {} */
  serverLimits: Partial<ServerLimits>;
  /**
   * TLS (Java `tls.server.mode` + certificate). No ACL here: like Java's NameServer, signed
   * requests are accepted and their signature ignored (docs/security.md §2.7).
   * @default undefined: plain TCP
   */
  tls: ServerTlsOptions | undefined;
  /** @default silentLogger */
  logger: Logger;
}

export const DEFAULT_NAMESERVER_OPTIONS: Readonly<NameServerOptions> = Object.freeze({
  host: '127.0.0.1',
  listenPort: 9876,
  brokerChannelExpiredMs: 120_000,
  scanNotActiveBrokerIntervalMs: 10_000,
  maxKvConfigItems: 10_000,
  serverLimits: {},
  tls: undefined,
  logger: silentLogger,
});

export function validateNameServerOptions(options: Partial<NameServerOptions> = {}): NameServerOptions {
  const o = withDefaults<NameServerOptions>(DEFAULT_NAMESERVER_OPTIONS, options);
  checkInt('listenPort', o.listenPort, 0, 65535);
  checkInt('maxKvConfigItems', o.maxKvConfigItems, 0);
  validateServerLimits('serverLimits', o.serverLimits);
  checkPositive('brokerChannelExpiredMs', o.brokerChannelExpiredMs);
  checkPositive('scanNotActiveBrokerIntervalMs', o.scanNotActiveBrokerIntervalMs);
  checkString('host', o.host);
  checkLogger('logger', o.logger);
  resolveServerTls(o.tls);
  return o;
}

type Handler = (request: RemotingCommand, connection: Connection) => RemotingCommand | undefined;

export class NameServer {
  readonly options: NameServerOptions;
  /** @internal */
  readonly routes = new RouteInfoManager();
  /** KV config (Java `KVConfigManager`): kept until deleted, at most `maxKvConfigItems` items. */
  private readonly kv = new Map<string, Map<string, string>>();
  private kvEntries = 0;
  private server: RemotingServer | undefined;
  private scanTimer: NodeJS.Timeout | undefined;
  private addr = '';

  constructor(options: Partial<NameServerOptions> = {}) {
    this.options = validateNameServerOptions(options);
  }

  /** "127.0.0.1:port" once started. */
  get address(): string {
    return this.addr;
  }

  async start(): Promise<string> {
    if (this.server) return this.addr;
    const server = new RemotingServer({
      ...this.options.serverLimits,
      host: this.options.host,
      port: this.options.listenPort,
      logger: this.options.logger,
      tls: this.options.tls,
    });
    const handlers: Array<[number, Handler]> = [
      [RequestCode.REGISTER_BROKER, (r, c) => this.registerBroker(r, c)],
      [RequestCode.UNREGISTER_BROKER, (r) => this.unregisterBroker(r)],
      [RequestCode.GET_ROUTEINFO_BY_TOPIC, (r) => this.getRouteInfo(r)],
      [
        RequestCode.GET_BROKER_CLUSTER_INFO,
        (r) =>
          createResponse(
            r,
            ResponseCode.SUCCESS,
            undefined,
            undefined,
            encodeClusterInfo(this.routes.clusterInfo()),
          ),
      ],
      [RequestCode.QUERY_DATA_VERSION, (r) => this.queryDataVersion(r)],
      [RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, (r) => this.allTopics(r)],
      [RequestCode.PUT_KV_CONFIG, (r) => this.putKv(r)],
      [RequestCode.GET_KV_CONFIG, (r) => this.getKv(r)],
      [RequestCode.DELETE_KV_CONFIG, (r) => this.deleteKv(r)],
      [RequestCode.GET_KVLIST_BY_NAMESPACE, (r) => this.kvList(r)],
      [DeleteTopicInNamesrv.code, (r) => this.deleteTopic(r)],
      [GetTopicsByCluster.code, (r) => this.topicsByCluster(r)],
    ];
    for (const [code, handler] of handlers) server.registerProcessor(code, handler);
    server.on('disconnect', (conn: Connection) => {
      for (const addr of this.routes.brokersOnChannel(conn)) {
        this.routes.destroyBroker(addr);
        this.options.logger.info('broker connection closed, removed from routes', { brokerAddr: addr });
      }
    });
    const { host, port } = await server.listen();
    this.server = server;
    this.addr = `${host}:${port}`;
    this.scanTimer = setInterval(
      () => this.scanNotActiveBroker(),
      this.options.scanNotActiveBrokerIntervalMs,
    );
    this.scanTimer.unref();
    this.options.logger.info('name server started', { address: this.addr });
    return this.addr;
  }

  /** Removes brokers that have not registered within `brokerChannelExpiredMs`; returns them. */
  scanNotActiveBroker(now: number = Date.now()): string[] {
    const expired = this.routes.scanNotActiveBroker(this.options.brokerChannelExpiredMs, now);
    for (const addr of expired)
      this.options.logger.warn('broker expired, removed from routes', { brokerAddr: addr });
    return expired;
  }

  async stop(): Promise<void> {
    if (this.scanTimer) clearInterval(this.scanTimer);
    this.scanTimer = undefined;
    const server = this.server;
    this.server = undefined;
    if (server) await server.close();
  }

  private registerBroker(request: RemotingCommand, connection: Connection): RemotingCommand {
    const h = requestHeader(RegisterBrokerRequest, request);
    const bodyCrc32 = h.bodyCrc32 ?? 0;
    if (bodyCrc32 !== 0 && request.body) {
      const actual = crc32(request.body) & 0x7fffffff;
      if (actual !== bodyCrc32) return createResponse(request, ResponseCode.SYSTEM_ERROR, 'crc32 not match');
    }
    const result = this.routes.registerBroker({
      clusterName: h.clusterName,
      brokerAddr: h.brokerAddr,
      brokerName: h.brokerName,
      brokerId: h.brokerId,
      haServerAddr: h.haServerAddr ?? '',
      topicConfigWrapper: registerBody(request.body, h.compressed ?? false).topicConfigSerializeWrapper,
      channel: connection,
    });
    const orderConf = this.kv.get(ORDER_TOPIC_CONFIG_NAMESPACE);
    const body = orderConf && orderConf.size > 0 ? encodeKVTable(Object.fromEntries(orderConf)) : undefined;
    return createResponse(
      request,
      ResponseCode.SUCCESS,
      undefined,
      RegisterBrokerResponse.encode(result),
      body,
    );
  }

  private unregisterBroker(request: RemotingCommand): RemotingCommand {
    const h = requestHeader(UnregisterBroker, request);
    this.routes.unregisterBroker(h.clusterName, h.brokerAddr, h.brokerName, h.brokerId);
    return createResponse(request, ResponseCode.SUCCESS);
  }

  private getRouteInfo(request: RemotingCommand): RemotingCommand {
    const { topic } = requestHeader(GetRouteInfoByTopic, request);
    const route = this.routes.pickupTopicRouteData(topic);
    if (!route) {
      return createResponse(
        request,
        ResponseCode.TOPIC_NOT_EXIST,
        `No topic route info in name server for the topic: ${topic}${APPLY_TOPIC_HINT}`,
      );
    }
    const orderTopicConf = this.kv.get(ORDER_TOPIC_CONFIG_NAMESPACE)?.get(topic);
    if (orderTopicConf !== undefined) route.orderTopicConf = orderTopicConf;
    return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, encodeTopicRouteData(route));
  }

  private queryDataVersion(request: RemotingCommand): RemotingCommand {
    const { brokerAddr } = requestHeader(QueryDataVersion, request);
    const version =
      request.body && request.body.length > 0
        ? parseDataVersion(parseFastjsonBytes(request.body))
        : undefined;
    const changed = this.routes.isTopicConfigChanged(brokerAddr, version);
    if (!changed) this.routes.touch(brokerAddr);
    const stored = this.routes.brokerDataVersion(brokerAddr);
    const body = stored ? jsonBody(dataVersionJson(stored)) : undefined;
    return createResponse(
      request,
      ResponseCode.SUCCESS,
      undefined,
      QueryDataVersionResponse.encode({ changed }),
      body,
    );
  }

  private deleteTopic(request: RemotingCommand): RemotingCommand {
    const { topic, clusterName } = requestHeader(DeleteTopicInNamesrv, request);
    this.routes.deleteTopic(topic, clusterName);
    return createResponse(request, ResponseCode.SUCCESS);
  }

  private topicsByCluster(request: RemotingCommand): RemotingCommand {
    const { cluster } = requestHeader(GetTopicsByCluster, request);
    const body = encodeTopicList({ topicList: this.routes.topicsByCluster(cluster) });
    return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
  }

  private allTopics(request: RemotingCommand): RemotingCommand {
    const body = encodeTopicList({ topicList: this.routes.allTopics() });
    return createResponse(request, ResponseCode.SUCCESS, undefined, undefined, body);
  }

  private putKv(request: RemotingCommand): RemotingCommand {
    const { namespace, key, value } = requestHeader(PutKVConfig, request);
    let table = this.kv.get(namespace);
    if (table?.has(key) !== true && this.kvEntries >= this.options.maxKvConfigItems) {
      return createResponse(
        request,
        ResponseCode.SYSTEM_ERROR,
        `KV config is full (${this.options.maxKvConfigItems} items); delete some first`,
      );
    }
    if (!table) this.kv.set(namespace, (table = new Map()));
    if (!table.has(key)) this.kvEntries++;
    table.set(key, value);
    return createResponse(request, ResponseCode.SUCCESS);
  }

  private getKv(request: RemotingCommand): RemotingCommand {
    const { namespace, key } = requestHeader(GetKVConfig, request);
    const value = this.kv.get(namespace)?.get(key);
    if (value === undefined) {
      return createResponse(
        request,
        ResponseCode.QUERY_NOT_FOUND,
        `No config item, Namespace: ${namespace} Key: ${key}`,
      );
    }
    return createResponse(request, ResponseCode.SUCCESS, undefined, GetKVConfigResponse.encode({ value }));
  }

  private deleteKv(request: RemotingCommand): RemotingCommand {
    const { namespace, key } = requestHeader(DeleteKVConfig, request);
    const table = this.kv.get(namespace);
    if (table?.delete(key) === true) this.kvEntries--;
    if (table?.size === 0) this.kv.delete(namespace);
    return createResponse(request, ResponseCode.SUCCESS);
  }

  private kvList(request: RemotingCommand): RemotingCommand {
    const { namespace } = requestHeader(GetKVListByNamespace, request);
    const table = this.kv.get(namespace);
    if (!table || table.size === 0)
      return createResponse(request, ResponseCode.QUERY_NOT_FOUND, `No config item, Namespace: ${namespace}`);
    return createResponse(
      request,
      ResponseCode.SUCCESS,
      undefined,
      undefined,
      encodeKVTable(Object.fromEntries(table)),
    );
  }
}

/** An empty body registers no topics (a broker that only heartbeats). */
function registerBody(body: Uint8Array | undefined, compressed: boolean): RegisterBrokerBody {
  if (body === undefined || body.length === 0) {
    return {
      topicConfigSerializeWrapper: { dataVersion: { counter: 0, timestamp: 0 }, topicConfigTable: {} },
      filterServerList: [],
    };
  }
  return decodeRegisterBrokerBody(body, compressed);
}
