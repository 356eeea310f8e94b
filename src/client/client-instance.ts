/**
 * One ClientInstance per cluster identity (see instance-registry.ts): the connections
 * (`pool`), the routes and broker addresses of every topic in use (`routes`), group membership
 * (`heartbeat`) and the requests brokers send to the client (`inbound`), plus the timers that
 * drive the refresh and the heartbeats. Producers and consumers with identical identity
 * settings share it; each adds its groups to the heartbeat and its handlers to the inbound table.
 */
import type { Logger } from '../observability/logger.js';
import { RequestCode } from '../protocol/codes.js';
import { resolveCommandDefaults, type CommandDefaults, type RemotingCommand } from '../protocol/command.js';
import { ConnectionPool } from '../remoting/pool.js';
import { connectionPoolOptions, type ClientConnection } from './connection-options.js';
import { Heartbeat } from './heartbeat.js';
import { InboundRequests } from './inbound.js';
import { MasterWatch } from './master-watch.js';
import { ConnectError, ConnectionClosedError } from '../errors.js';
import { RoutePacer } from './route-pacer.js';
import { NamesrvClient } from './namesrv-client.js';
import { RouteLookup, type BrokerAddress } from './route-lookup.js';

export type { RouteUpdatedEvent } from './route-lookup.js';

export interface ClientInstanceConfig {
  clientId: string;
  namesrvAddr: readonly string[];
  namespace: string | undefined;
  language: string;
  mqClientApiTimeout: number;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
  /**
   * Template topic for auto-creation. Part of the instance key (instance-registry.ts): the
   * shared lookup and the cached template route are built from it.
   */
  createTopicKey: string;
  /** Queue count of a topic auto-created through `createTopicKey`; part of the instance key. */
  defaultTopicQueueNums: number;
  /**
   * Logger of instance-level events (route refresh, heartbeats, NameServer failover,
   * connections). Not part of the instance key: clients sharing an instance log their own
   * work through their own loggers, while instance-level events go to the logger of the
   * client that created the instance.
   */
  logger: Logger;
  /**
   * ACL credentials and TLS of every connection (connection-options.ts); part of the instance key.
   * @default plain, unsigned
   */
  connection?: ClientConnection | undefined;
  /** Index of the first NameServer to use; random when absent (tests pin it). */
  namesrvStartIndex?: number | undefined;
  /**
   * A topic nobody asked for during this long (ms) and not pinned is no longer refreshed
   * ('topicEvicted'); the next send looks it up again.
   * @default max(TOPIC_IDLE_INTERVALS × pollNameServerInterval, MIN_TOPIC_IDLE_MS)
   */
  topicIdleMs?: number | undefined;
}

export class ClientInstance {
  readonly clientId: string;
  readonly logger: Logger;
  readonly pool: ConnectionPool;
  readonly namesrv: NamesrvClient;
  readonly commandDefaults: Readonly<CommandDefaults>;
  /** Topic routes and broker addresses. */
  readonly routes: RouteLookup;
  /** Group membership: HEART_BEAT and UNREGISTER_CLIENT. */
  readonly heartbeat: Heartbeat;
  /** Handlers of the requests brokers send to this client. */
  readonly inbound = new InboundRequests();
  /** The periodic route refresh, spread over the interval, one request at a time. */
  readonly pacer: RoutePacer;
  /** Fast route refresh of a group whose master became unreachable. */
  readonly masterWatch: MasterWatch;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private started = false;
  private closed = false;

  constructor(readonly config: ClientInstanceConfig) {
    this.clientId = config.clientId;
    this.logger = config.logger;
    this.commandDefaults = resolveCommandDefaults({ language: config.language });
    this.pool = new ConnectionPool({
      connectTimeoutMs: config.mqClientApiTimeout,
      logger: config.logger,
      requestHandler: this.inbound.dispatch,
      ...connectionPoolOptions(config.connection),
    });
    this.namesrv = new NamesrvClient(
      config.namesrvAddr,
      this.pool,
      this.commandDefaults,
      config.logger,
      config.namesrvStartIndex,
    );
    this.routes = new RouteLookup(config, this.namesrv);
    this.heartbeat = new Heartbeat({
      clientId: this.clientId,
      pool: this.pool,
      commandDefaults: this.commandDefaults,
      logger: config.logger,
      timeoutMs: config.mqClientApiTimeout,
      brokerAddresses: (withSlaves) => this.routes.brokerAddresses(withSlaves),
    });
    this.pacer = new RoutePacer(this.routes, config);
    this.masterWatch = new MasterWatch(this.routes, (topics) => this.pacer.urgent(topics), {
      logger: config.logger,
    });
    this.routes.on('brokerAddressAdded', (addr: string, brokerId: number) =>
      this.heartbeat.onBrokerAdded(addr, brokerId !== 0),
    );
    this.routes.on('brokerAddressRemoved', (addr: string) => this.pool.closeConnection(addr));
    this.inbound.register(RequestCode.CHECK_TRANSACTION_STATE, (request) =>
      this.ignoreTransactionCheck(request),
    );
  }

  /** Starts the route refresh and heartbeat timers (unref'd); idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.pacer.start();
    this.heartbeatTimer = setInterval(
      () => void this.heartbeat.sendHeartbeatToAllBrokers(),
      this.config.heartbeatBrokerInterval,
    );
    this.heartbeatTimer.unref();
  }

  /**
   * Address of a broker: `brokerId` (master by default), else — unless `onlyThisBroker` — any
   * other known address of that broker (Java `findBrokerAddressInSubscribe`).
   */
  findBrokerAddress(brokerName: string, brokerId = 0, onlyThisBroker = false): BrokerAddress | undefined {
    return this.routes.findBrokerAddress(brokerName, brokerId, onlyThisBroker);
  }

  /**
   * A request to a broker's master (sends): an unreachable master starts the fast route refresh
   * of its group (master-watch.ts); an answer from an address being watched ends it.
   */
  masterRequest(
    address: string,
    cmd: RemotingCommand,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<RemotingCommand> {
    return this.pool.request(address, cmd, timeoutMs, signal).then(
      (response) => {
        if (this.masterWatch.active) this.masterWatch.answered(address);
        return response;
      },
      (err: unknown) => {
        if (err instanceof ConnectError || err instanceof ConnectionClosedError)
          this.masterWatch.masterUnreachable(address);
        throw err;
      },
    );
  }

  /** Cheap liveness probe of a broker's master for the fault strategies (a heartbeat). */
  probeBroker(brokerName: string, timeoutMs: number): Promise<boolean> {
    const addr = this.routes.masterAddress(brokerName);
    return addr === undefined ? Promise.resolve(false) : this.heartbeat.sendTo(addr, timeoutMs);
  }

  /**
   * No transactional producer registers a handler here yet: the check is logged and not
   * answered (the broker asks again later), as a Java producer without a listener does.
   */
  private ignoreTransactionCheck(request: RemotingCommand): undefined {
    this.logger.warn('CHECK_TRANSACTION_STATE received, but this client sends no transactional messages', {
      extFields: request.extFields,
    });
    return undefined;
  }

  /** Stops timers and closes every connection. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pacer.stop();
    this.masterWatch.stop();
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.routes.close();
    await this.pool.close();
  }
}
