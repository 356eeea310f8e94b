/**
 * One ClientInstance per cluster identity (see instance-registry.ts): the connections, the
 * routes of every topic in use, the broker address table, heartbeats and the periodic refresh.
 * Producers with identical identity settings share it.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../observability/logger.js';
import { RequestCode, ResponseCode } from '../protocol/codes.js';
import {
  createRequest,
  createResponse,
  isOneway,
  type CommandDefaults,
  type RemotingCommand,
} from '../protocol/command.js';
import { CLIENT_INNER_PRODUCER_GROUP, encodeHeartbeatData } from '../protocol/headers/heartbeat.js';
import type { TopicRouteData } from '../protocol/headers/route.js';
import { SerializeType } from '../protocol/command.js';
import { ConnectionPool } from '../remoting/pool.js';
import { ConnectError, ConnectionClosedError, TimeoutError } from '../errors.js';
import { TopicRouteNotFoundError } from './errors.js';
import { withoutNamespace } from './namespace.js';
import { NamesrvClient } from './namesrv-client.js';
import { capDefaultTopicRoute, masterAddresses, publishQueues } from './route.js';

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
   * connections). Not part of the instance key: producers sharing an instance log their own
   * sends through their own loggers, while instance-level events go to the logger of the
   * producer that created the instance.
   */
  logger: Logger;
  /** Index of the first NameServer to use; random when absent (tests pin it). */
  namesrvStartIndex?: number | undefined;
  /**
   * A topic no sender asked for during this long (ms) is no longer refreshed ('topicEvicted');
   * the next send looks it up again.
   * @default max(TOPIC_IDLE_INTERVALS × pollNameServerInterval, MIN_TOPIC_IDLE_MS)
   */
  topicIdleMs?: number | undefined;
}

/** Refresh periods a topic may go unused before it is dropped from the refresh set. */
export const TOPIC_IDLE_INTERVALS = 4;
/** Floor of the idle time, so short refresh periods do not drop topics sent every few seconds. */
export const MIN_TOPIC_IDLE_MS = 60_000;

export interface RouteUpdatedEvent {
  topic: string;
  brokers: string[];
  /** True when the route is the createTopicKey (TBW102) fallback. */
  fromDefaultTopic: boolean;
}

/** A topic's current route; a new object whenever the route changes. */
export interface TopicRouteEntry {
  readonly topic: string;
  readonly route: TopicRouteData;
  /** True when the route is the createTopicKey (TBW102) fallback. */
  readonly fromDefaultTopic: boolean;
  readonly json: string;
}

export class ClientInstance extends EventEmitter {
  readonly clientId: string;
  readonly pool: ConnectionPool;
  readonly namesrv: NamesrvClient;
  readonly commandDefaults: Readonly<CommandDefaults>;
  private readonly topics = new Map<string, TopicRouteEntry>();
  /** Wire topic → when a sender last asked for it (drives idle eviction). */
  private readonly lastUsed = new Map<string, number>();
  private refreshing: Promise<void> | undefined;
  private readonly pending = new Map<string, Promise<TopicRouteEntry>>();
  /** brokerName → master address, union over every route. */
  private readonly brokers = new Map<string, string>();
  private readonly producerGroups = new Set<string>();
  private readonly logger: Logger;
  private pollTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private started = false;
  private closed = false;

  constructor(readonly config: ClientInstanceConfig) {
    super();
    // Every producer sharing the instance listens to 'routeUpdated'.
    this.setMaxListeners(0);
    this.clientId = config.clientId;
    this.logger = config.logger;
    this.commandDefaults = Object.freeze({
      language: config.language,
      version: 407,
      serializeType: SerializeType.JSON,
    });
    this.pool = new ConnectionPool({
      connectTimeoutMs: config.mqClientApiTimeout,
      logger: config.logger,
      requestHandler: (request) => this.handleBrokerRequest(request),
    });
    this.namesrv = new NamesrvClient(
      config.namesrvAddr,
      this.pool,
      this.commandDefaults,
      config.logger,
      config.namesrvStartIndex,
    );
  }

  /** Starts the route refresh and heartbeat timers (unref'd); idempotent. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.pollTimer = setInterval(() => void this.refreshRoutes(), this.config.pollNameServerInterval);
    this.pollTimer.unref();
    this.heartbeatTimer = setInterval(
      () => void this.sendHeartbeatToAllBrokers(),
      this.config.heartbeatBrokerInterval,
    );
    this.heartbeatTimer.unref();
  }

  registerProducer(group: string): boolean {
    if (this.producerGroups.has(group)) return false;
    this.producerGroups.add(group);
    void this.sendHeartbeatToAllBrokers();
    return true;
  }

  /** Removes the group and tells every broker (UNREGISTER_CLIENT). */
  async unregisterProducer(group: string): Promise<void> {
    if (!this.producerGroups.delete(group)) return;
    const timeout = this.config.mqClientApiTimeout;
    await Promise.allSettled(
      [...new Set(this.brokers.values())].map((addr) =>
        this.pool.request(
          addr,
          createRequest(
            RequestCode.UNREGISTER_CLIENT,
            { clientID: this.clientId, producerGroup: group },
            undefined,
            this.commandDefaults,
          ),
          timeout,
        ),
      ),
    );
  }

  get groups(): ReadonlySet<string> {
    return this.producerGroups;
  }

  /** Master address of `brokerName` from the routes. */
  brokerAddress(brokerName: string): string | undefined {
    return this.brokers.get(brokerName);
  }

  /** Every known broker name → master address. */
  brokerTable(): ReadonlyMap<string, string> {
    return this.brokers;
  }

  /** The cached route of `topic` (wire name), if any; marks the topic as in use. */
  cachedRoute(topic: string): TopicRouteEntry | undefined {
    const entry = this.topics.get(topic);
    if (entry !== undefined) this.lastUsed.set(topic, Date.now());
    return entry;
  }

  /** Wire names of the topics the periodic refresh keeps up to date. */
  topicsInUse(): string[] {
    return [...this.topics.keys()];
  }

  /** A route error names the topic as the user wrote it, not the namespaced wire name. */
  private noRoute(topic: string, message: string, cause?: unknown): TopicRouteNotFoundError {
    return new TopicRouteNotFoundError(
      withoutNamespace(topic, this.config.namespace),
      message,
      cause === undefined ? {} : { cause },
    );
  }

  /**
   * Route of `topic` (wire name) with at least one writable queue: cache, then the NameServer,
   * then — only when the NameServer answers TOPIC_NOT_EXIST — the createTopicKey route with
   * queue nums capped so the broker auto-creates the topic. A topic the NameServer knows but
   * that has no writable queue on a master fails (as Java): it is never auto-created elsewhere.
   * Concurrent callers share one lookup.
   */
  route(topic: string, timeoutMs: number): Promise<TopicRouteEntry> {
    this.lastUsed.set(topic, Date.now());
    const entry = this.topics.get(topic);
    if (entry !== undefined && publishQueues(topic, entry.route).length > 0) return Promise.resolve(entry);
    let p = this.pending.get(topic);
    if (p === undefined) {
      p = this.lookup(topic, timeoutMs).finally(() => this.pending.delete(topic));
      this.pending.set(topic, p);
    }
    return p;
  }

  private async getRouteOrNoRoute(
    topic: string,
    name: string,
    timeoutMs: number,
  ): Promise<TopicRouteData | undefined> {
    try {
      return await this.namesrv.getRouteInfo(name, timeoutMs);
    } catch (err) {
      if (err instanceof TimeoutError || err instanceof ConnectError || err instanceof ConnectionClosedError)
        throw this.noRoute(topic, `no NameServer answered: ${err.message}`, err);
      throw err;
    }
  }

  private async lookup(topic: string, timeoutMs: number): Promise<TopicRouteEntry> {
    const { createTopicKey, defaultTopicQueueNums } = this.config;
    const deadline = Date.now() + timeoutMs;
    const route = await this.getRouteOrNoRoute(topic, topic, timeoutMs);
    if (route !== undefined) {
      if (publishQueues(topic, route).length > 0) return this.storeRoute(topic, route, false);
      throw this.noRoute(topic, 'the route has no writable queue on a master broker');
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw this.noRoute(topic, 'route lookup used the whole send timeout');
    const template = await this.getRouteOrNoRoute(topic, createTopicKey, remaining);
    if (template === undefined)
      throw this.noRoute(topic, `the NameServer knows neither the topic nor ${createTopicKey}`);
    const capped = capDefaultTopicRoute(template, defaultTopicQueueNums);
    if (publishQueues(topic, capped).length === 0)
      throw this.noRoute(topic, 'no writable queue on any master broker');
    this.logger.info('topic not found, sending through the auto-create template', {
      topic,
      template: createTopicKey,
    });
    return this.storeRoute(topic, capped, true);
  }

  /** Stores a route, updates the broker table, emits 'routeUpdated' when it changed. */
  private storeRoute(topic: string, route: TopicRouteData, fromDefaultTopic: boolean): TopicRouteEntry {
    const json = JSON.stringify(route);
    const old = this.topics.get(topic);
    if (old !== undefined && old.json === json && old.fromDefaultTopic === fromDefaultTopic) return old;
    const entry: TopicRouteEntry = { topic, route, fromDefaultTopic, json };
    this.topics.set(topic, entry);
    if (!this.lastUsed.has(topic)) this.lastUsed.set(topic, Date.now());
    const added: string[] = [];
    for (const [name, addr] of masterAddresses(route)) {
      const before = this.brokers.get(name);
      if (before !== addr) {
        this.brokers.set(name, addr);
        added.push(addr);
        if (before !== undefined) this.pool.closeConnection(before);
      }
    }
    const event: RouteUpdatedEvent = { topic, brokers: [...masterAddresses(route).keys()], fromDefaultTopic };
    this.emit('routeUpdated', event);
    if (added.length > 0 && this.producerGroups.size > 0) for (const addr of added) void this.heartbeat(addr);
    return entry;
  }

  /**
   * Refreshes every topic in use, all at once under one mqClientApiTimeout deadline; brokers no
   * route names any more are dropped and disconnected. Topics no sender asked for during
   * `topicIdleMs` are dropped first ('topicEvicted'). While a refresh
   * runs, another call joins it instead of starting a second one, so a hung NameServer cannot
   * make refreshes pile up.
   */
  refreshRoutes(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.refreshing ??= this.refreshOnce().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** Whether a refresh is running (for tests and diagnostics). */
  get refreshInProgress(): boolean {
    return this.refreshing !== undefined;
  }

  private async refreshOnce(): Promise<void> {
    this.evictIdleTopics();
    const timeout = this.config.mqClientApiTimeout;
    await Promise.all(
      [...this.topics].map(async ([topic, entry]) => {
        try {
          const route = await this.namesrv.getRouteInfo(topic, timeout);
          if (this.closed || !this.topics.has(topic)) return;
          if (route !== undefined) this.storeRoute(topic, route, false);
          else if (!entry.fromDefaultTopic)
            this.logger.warn('topic route disappeared; keeping the last one', { topic });
        } catch (err) {
          this.logger.warn('route refresh failed', { topic, error: (err as Error).message });
        }
      }),
    );
    if (!this.closed) this.cleanOfflineBrokers();
  }

  private evictIdleTopics(): void {
    const idleMs =
      this.config.topicIdleMs ??
      Math.max(TOPIC_IDLE_INTERVALS * this.config.pollNameServerInterval, MIN_TOPIC_IDLE_MS);
    const idleBefore = Date.now() - idleMs;
    for (const topic of [...this.topics.keys()]) {
      if ((this.lastUsed.get(topic) ?? 0) >= idleBefore || this.pending.has(topic)) continue;
      this.topics.delete(topic);
      this.lastUsed.delete(topic);
      this.logger.debug('topic unused; no longer refreshed', { topic });
      this.emit('topicEvicted', topic);
    }
  }

  /** Java `cleanOfflineBroker`: forget brokers that left every route and close their connections. */
  cleanOfflineBrokers(): void {
    const live = new Set<string>();
    for (const e of this.topics.values()) for (const name of masterAddresses(e.route).keys()) live.add(name);
    for (const [name, addr] of [...this.brokers]) {
      if (live.has(name)) continue;
      this.brokers.delete(name);
      this.pool.closeConnection(addr);
      this.logger.info('broker left every route; connection closed', { brokerName: name, addr });
    }
  }

  private heartbeatBody(): Buffer {
    return encodeHeartbeatData({
      clientID: this.clientId,
      producerDataSet: [
        { groupName: CLIENT_INNER_PRODUCER_GROUP },
        ...[...this.producerGroups].map((groupName) => ({ groupName })),
      ],
      consumerDataSet: [],
    });
  }

  /** HEART_BEAT to one broker; resolves true when it answered SUCCESS. */
  async heartbeat(address: string, timeoutMs = this.config.mqClientApiTimeout): Promise<boolean> {
    try {
      const response = await this.pool.request(
        address,
        createRequest(RequestCode.HEART_BEAT, undefined, this.heartbeatBody(), this.commandDefaults),
        timeoutMs,
      );
      return response.code === ResponseCode.SUCCESS;
    } catch (err) {
      this.logger.debug('heartbeat failed', { address, error: (err as Error).message });
      return false;
    }
  }

  /** Heartbeat to every master broker in the routes. */
  async sendHeartbeatToAllBrokers(): Promise<void> {
    if (this.closed || this.producerGroups.size === 0) return;
    await Promise.all([...new Set(this.brokers.values())].map((addr) => this.heartbeat(addr)));
  }

  /** Cheap liveness probe of a broker for the fault strategies (a heartbeat). */
  probeBroker(brokerName: string, timeoutMs: number): Promise<boolean> {
    const addr = this.brokers.get(brokerName);
    return addr === undefined ? Promise.resolve(false) : this.heartbeat(addr, timeoutMs);
  }

  /** Requests brokers initiate: CHECK_TRANSACTION_STATE is logged (no transactions here); others are not supported. */
  private handleBrokerRequest(request: RemotingCommand): RemotingCommand | undefined {
    if (request.code === RequestCode.CHECK_TRANSACTION_STATE) {
      this.logger.warn('CHECK_TRANSACTION_STATE received, but this client sends no transactional messages', {
        extFields: request.extFields,
      });
      return undefined;
    }
    if (isOneway(request)) return undefined;
    return createResponse(
      request,
      ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      ` request type ${request.code} not supported`,
    );
  }

  /** Stops timers and closes every connection. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.removeAllListeners();
    await this.pool.close();
  }
}
