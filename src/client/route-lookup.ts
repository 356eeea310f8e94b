/**
 * The one home of topic routes (protocol.md §7): one cache entry per wire topic, looked up as
 * cache → NameServer → (publishing only, and only on TOPIC_NOT_EXIST) the createTopicKey
 * (TBW102) route; the periodic refresh of every topic in use (producers' and consumers'); idle
 * eviction (except for pinned topics, which a consumer keeps while subscribed); and the broker
 * address table (every brokerId of every broker, union over the routes). The producer's
 * publish view with its round-robin position hangs off the entry (`publishInfo`), so there is
 * no second cache to keep in sync.
 *
 * Events: 'routeUpdated' (RouteUpdatedEvent), 'topicEvicted' (wire topic),
 * 'brokerAddressAdded' (address, brokerId), 'brokerAddressRemoved' (address).
 */
import { EventEmitter } from 'node:events';
import {
  ConnectError,
  ConnectionClosedError,
  NameServerUnreachableError,
  TimeoutError,
  TopicNotFoundError,
} from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { RequestCode } from '../protocol/codes.js';
import { MASTER_ID, type TopicRouteData } from '../protocol/headers/route.js';
import { DEFAULT_TOPIC } from '../protocol/validation.js';
import { Deadline, type Clock } from './deadline.js';
import { withoutNamespace } from './namespace.js';
import type { NamesrvClient } from './namesrv-client.js';
import {
  capDefaultTopicRoute,
  masterAddress,
  publishQueues,
  subscribeQueues,
  type MessageQueue,
} from './route.js';
import { TopicPublishInfo } from './topic-publish-info.js';

export interface RouteLookupConfig {
  namespace: string | undefined;
  /** Template topic for auto-creation (Java `createTopicKey`). */
  createTopicKey: string;
  /** Queue count of a topic auto-created through `createTopicKey`. */
  defaultTopicQueueNums: number;
  /** Budget of one periodic refresh. */
  mqClientApiTimeout: number;
  pollNameServerInterval: number;
  /**
   * A topic nobody asked for during this long (ms) and not pinned is no longer refreshed.
   * @default max(TOPIC_IDLE_INTERVALS × pollNameServerInterval, MIN_TOPIC_IDLE_MS)
   */
  topicIdleMs?: number | undefined;
  logger: Logger;
  /** @default Date.now */
  clock?: Clock | undefined;
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

/** What the caller needs the route for: publishing allows the TBW102 fallback, subscribing does not. */
export type RoutePurpose = 'publish' | 'subscribe';

/**
 * A lookup of its own over `namesrv`, for a tool that holds no ClientInstance (the CLI demo's
 * reader): no namespace, Java's auto-create template, never refreshed (nobody starts a pacer).
 */
export function standaloneRouteLookup(
  namesrv: NamesrvClient,
  logger: Logger,
  timeoutMs: number,
): RouteLookup {
  return new RouteLookup(
    {
      namespace: undefined,
      createTopicKey: DEFAULT_TOPIC,
      defaultTopicQueueNums: 4,
      mqClientApiTimeout: timeoutMs,
      pollNameServerInterval: 30_000,
      logger,
    },
    namesrv,
  );
}

/** A topic's current route; a new object whenever the route changes. */
export class TopicRouteEntry {
  /** The producer's view: writable queues and the round-robin position (kept across route changes). */
  readonly publishInfo: TopicPublishInfo;
  private subscribe: readonly MessageQueue[] | undefined;

  constructor(
    readonly topic: string,
    readonly route: TopicRouteData,
    /** True when the route is the createTopicKey (TBW102) fallback. */
    readonly fromDefaultTopic: boolean,
    readonly json: string,
    previous: TopicRouteEntry | undefined,
  ) {
    this.publishInfo =
      previous === undefined
        ? new TopicPublishInfo(topic, route, fromDefaultTopic)
        : previous.publishInfo.withRoute(route, fromDefaultTopic);
  }

  /** Writable queues (Java `topicRouteData2TopicPublishInfo`). */
  get publishQueues(): readonly MessageQueue[] {
    return this.publishInfo.queues;
  }

  /** Readable queues (Java `topicRouteData2TopicSubscribeInfo`). */
  get subscribeQueues(): readonly MessageQueue[] {
    return (this.subscribe ??= Object.freeze(subscribeQueues(this.topic, this.route)));
  }
}

/** Where a broker can be reached (Java `FindBrokerResult`). */
export interface BrokerAddress {
  address: string;
  brokerId: number;
  /** True when the address is not the master's. */
  slave: boolean;
}

/** No NameServer could be reached; a NameServer that does not answer in time is a TimeoutError instead. */
function isUnreachable(err: unknown): boolean {
  return err instanceof ConnectError || err instanceof ConnectionClosedError;
}

export class RouteLookup extends EventEmitter {
  private readonly topics = new Map<string, TopicRouteEntry>();
  /** Wire topic → when a caller last asked for it (drives idle eviction). */
  private readonly lastUsed = new Map<string, number>();
  /** Wire topic → number of pins; pinned topics are never evicted. */
  private readonly pins = new Map<string, number>();
  private readonly pending = new Map<string, Promise<TopicRouteEntry>>();
  /** brokerName → brokerId → address, from the latest route naming the broker. */
  private readonly brokers = new Map<string, ReadonlyMap<number, string>>();
  private refreshing: Promise<void> | undefined;
  private closed = false;
  private readonly clock: Clock;

  constructor(
    private readonly config: RouteLookupConfig,
    private readonly namesrv: NamesrvClient,
  ) {
    super();
    // Every producer and consumer sharing the instance listens to 'routeUpdated'.
    this.setMaxListeners(0);
    this.clock = config.clock ?? Date.now;
  }

  /** The cached entry of `topic` (wire name), if any; marks the topic as in use. */
  cached(topic: string): TopicRouteEntry | undefined {
    const entry = this.topics.get(topic);
    if (entry !== undefined) this.lastUsed.set(topic, this.clock());
    return entry;
  }

  /**
   * Route of `topic` (wire name) within `deadline`. For 'publish' (default) the route has at
   * least one writable queue on a master: cache, then the NameServer, then — only when the
   * NameServer answers TOPIC_NOT_EXIST — the createTopicKey route with queue nums capped so
   * the broker auto-creates the topic; a topic the NameServer knows without a writable queue
   * fails (as Java). For 'subscribe' the NameServer's route as is (TOPIC_NOT_EXIST fails).
   * Concurrent callers share one lookup; each still waits no longer than its own deadline
   * (a TimeoutError).
   */
  get(topic: string, deadline: Deadline, purpose: RoutePurpose = 'publish'): Promise<TopicRouteEntry> {
    const started = this.clock();
    this.lastUsed.set(topic, started);
    const entry = this.topics.get(topic);
    if (entry !== undefined && (purpose === 'subscribe' || entry.publishInfo.ok()))
      return Promise.resolve(entry);
    const key = `${purpose}\0${topic}`;
    let p = this.pending.get(key);
    if (p === undefined) {
      // Shared by every caller of this topic: one caller's signal must not end it for the others.
      p = this.lookup(topic, deadline.withoutSignal(), purpose).finally(() => this.pending.delete(key));
      this.pending.set(key, p);
    }
    return deadline.race(
      p,
      () =>
        new TimeoutError(
          this.namesrv.currentAddress,
          RequestCode.GET_ROUTEINFO_BY_TOPIC,
          this.clock() - started,
          `route lookup of ${this.userTopic(topic)} timed out`,
        ),
    );
  }

  /**
   * The route the NameServer holds for `topic` (wire name) right now, or undefined when it does
   * not know the topic: always asked (no cache, no TBW102 fallback) and not cached, for tools
   * that show what is registered (Admin, the CLI). An unreachable NameServer is a
   * NameServerUnreachableError, a silent one a TimeoutError.
   */
  async latest(topic: string, deadline: Deadline): Promise<TopicRouteData | undefined> {
    try {
      return await this.namesrv.getRouteInfo(topic, deadline);
    } catch (err) {
      if (isUnreachable(err)) throw new NameServerUnreachableError(this.namesrv.addresses, { cause: err });
      throw err;
    }
  }

  /** Readable queues of `topic` (Java `fetchSubscribeMessageQueues`). */
  async subscribeQueues(topic: string, deadline: Deadline): Promise<readonly MessageQueue[]> {
    return (await this.get(topic, deadline, 'subscribe')).subscribeQueues;
  }

  /**
   * Keeps `topic` in the refresh set while pinned (a consumer's subscription): no idle
   * eviction. Pins count; each `pin` needs one `unpin`.
   */
  pin(topic: string): void {
    this.pins.set(topic, (this.pins.get(topic) ?? 0) + 1);
    this.lastUsed.set(topic, this.clock());
  }

  unpin(topic: string): void {
    const n = (this.pins.get(topic) ?? 0) - 1;
    if (n > 0) this.pins.set(topic, n);
    else this.pins.delete(topic);
    this.lastUsed.set(topic, this.clock());
  }

  /** Wire names of the cached topics (the periodic refresh also covers pinned ones). */
  topicsInUse(): string[] {
    return [...this.topics.keys()];
  }

  /**
   * Address of a broker (Java `findBrokerAddressInSubscribe`): `brokerId` (master by default)
   * when known; otherwise, unless `onlyThisBroker`, any other known address of that broker.
   */
  findBrokerAddress(brokerName: string, brokerId = 0, onlyThisBroker = false): BrokerAddress | undefined {
    const ids = this.brokers.get(brokerName);
    if (ids === undefined) return undefined;
    const exact = ids.get(brokerId);
    if (exact !== undefined) return { address: exact, brokerId, slave: brokerId !== 0 };
    if (onlyThisBroker) return undefined;
    for (const [id, address] of ids) return { address, brokerId: id, slave: id !== 0 };
    return undefined;
  }

  /** Master address of `brokerName`. */
  masterAddress(brokerName: string): string | undefined {
    return this.brokers.get(brokerName)?.get(0);
  }

  /** Every known broker name → brokerId → address. */
  brokerTable(): ReadonlyMap<string, ReadonlyMap<number, string>> {
    return this.brokers;
  }

  /** Every known broker address; masters only unless `withSlaves`. */
  brokerAddresses(withSlaves: boolean): string[] {
    const out = new Set<string>();
    for (const ids of this.brokers.values())
      for (const [id, addr] of ids) if (withSlaves || id === 0) out.add(addr);
    return [...out];
  }

  private userTopic(topic: string): string {
    return withoutNamespace(topic, this.config.namespace);
  }

  /** A route error names the topic as the user wrote it, not the namespaced wire name. */
  private noRoute(topic: string, message: string, cause?: unknown): TopicNotFoundError {
    // Retriable: the topic may be being created, and the next lookup asks the NameServer again.
    return new TopicNotFoundError(this.userTopic(topic), message, { retriable: true, cause });
  }

  /**
   * GET_ROUTEINFO_BY_TOPIC; unreachable NameServers are NameServerUnreachableError (retriable), not
   * a missing topic: the topic may well exist, and the address to check is the NameServer's. A
   * timeout stays one.
   */
  private async fetch(name: string, deadline: Deadline): Promise<TopicRouteData | undefined> {
    try {
      return await this.namesrv.getRouteInfo(name, deadline);
    } catch (err) {
      if (isUnreachable(err)) throw new NameServerUnreachableError(this.namesrv.addresses, { cause: err });
      throw err;
    }
  }

  private async lookup(topic: string, deadline: Deadline, purpose: RoutePurpose): Promise<TopicRouteEntry> {
    const route = await this.fetch(topic, deadline);
    if (purpose === 'subscribe') {
      if (route === undefined) throw this.noRoute(topic, 'the NameServer does not know the topic');
      return this.store(topic, route, false);
    }
    if (route !== undefined) {
      if (publishQueues(topic, route).length > 0) return this.store(topic, route, false);
      throw this.noRoute(topic, 'the route has no writable queue on a master broker');
    }
    const { createTopicKey, defaultTopicQueueNums } = this.config;
    const template = await this.fetch(createTopicKey, deadline);
    if (template === undefined)
      throw this.noRoute(topic, `the NameServer knows neither the topic nor ${createTopicKey}`);
    const capped = capDefaultTopicRoute(template, defaultTopicQueueNums);
    if (publishQueues(topic, capped).length === 0)
      throw this.noRoute(topic, 'no writable queue on any master broker');
    this.config.logger.info('topic not found, sending through the auto-create template', {
      topic,
      template: createTopicKey,
    });
    return this.store(topic, capped, true);
  }

  /** Stores a route, updates the broker table, emits 'routeUpdated' when it changed. */
  private store(topic: string, route: TopicRouteData, fromDefaultTopic: boolean): TopicRouteEntry {
    const json = JSON.stringify(route);
    const old = this.topics.get(topic);
    if (old !== undefined && old.json === json && old.fromDefaultTopic === fromDefaultTopic) return old;
    const entry = new TopicRouteEntry(topic, route, fromDefaultTopic, json, old);
    this.topics.set(topic, entry);
    if (!this.lastUsed.has(topic)) this.lastUsed.set(topic, this.clock());
    for (const b of route.brokerDatas) this.updateBroker(b.brokerName, b.brokerAddrs);
    const brokers: string[] = [];
    for (const b of route.brokerDatas) if (b.brokerAddrs[MASTER_ID] !== undefined) brokers.push(b.brokerName);
    const event: RouteUpdatedEvent = { topic, brokers, fromDefaultTopic };
    this.emit('routeUpdated', event);
    return entry;
  }

  private updateBroker(brokerName: string, addrs: Readonly<Record<string, string>>): void {
    const next = new Map<number, string>();
    for (const [id, addr] of Object.entries(addrs)) next.set(Number(id), addr);
    const before = this.brokers.get(brokerName);
    // Events are per address, not per broker name: behind a 5.x Proxy every broker name has the
    // same address, and one name leaving must not close the connection the others use.
    const had = new Set(this.brokerAddresses(true));
    this.brokers.set(brokerName, next);
    const has = new Set(this.brokerAddresses(true));
    if (before !== undefined)
      for (const addr of before.values()) if (!has.has(addr)) this.emit('brokerAddressRemoved', addr);
    for (const [id, addr] of next) if (!had.has(addr)) this.emit('brokerAddressAdded', addr, id);
  }

  /**
   * Refreshes every topic in use now, one request at a time (a burst of a thousand lookups
   * would hit the NameServer all at once) under one mqClientApiTimeout deadline; brokers no
   * route names any more are dropped. Topics nobody asked for during `topicIdleMs` and not
   * pinned are dropped first ('topicEvicted'). While a refresh runs, another call joins it
   * instead of starting a second one, so a hung NameServer cannot make refreshes pile up. The
   * periodic refresh spreads the same work over the interval instead (route-pacer.ts).
   */
  refresh(): Promise<void> {
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
    const deadline = Deadline.after(this.config.mqClientApiTimeout, this.clock);
    for (const topic of this.beginPass()) {
      if (this.closed) return;
      await this.refreshTopic(topic, deadline);
    }
    this.endPass();
  }

  /**
   * Starts a refresh pass: evicts idle topics and returns the topics to refresh (every cached
   * one, and the pinned ones even before their first successful lookup).
   */
  beginPass(): string[] {
    this.evictIdleTopics();
    return [...new Set([...this.topics.keys(), ...this.pins.keys()])];
  }

  /** Ends a refresh pass: forgets brokers no route names any more. */
  endPass(): void {
    if (!this.closed) this.cleanOfflineBrokers();
  }

  /**
   * Fetches and stores the route of one topic in use; false when the NameServer could not be
   * asked (the failure is logged) or the topic is no longer in use.
   */
  async refreshTopic(topic: string, deadline: Deadline): Promise<boolean> {
    if (this.closed) return false;
    try {
      const route = await this.namesrv.getRouteInfo(topic, deadline);
      const entry = this.topics.get(topic);
      if (this.closed || (entry === undefined && !this.pins.has(topic))) return false;
      if (route !== undefined) this.store(topic, route, false);
      else if (entry !== undefined && !entry.fromDefaultTopic)
        this.config.logger.warn('topic route disappeared; keeping the last one', { topic });
      return true;
    } catch (err) {
      this.config.logger.warn('route refresh failed', { topic, error: (err as Error).message });
      return false;
    }
  }

  /** Master address of `brokerName` in the current route of `topic`, if the route names one. */
  masterInRoute(topic: string, brokerName: string): string | undefined {
    const entry = this.topics.get(topic);
    return entry === undefined ? undefined : masterAddress(entry.route, brokerName);
  }

  /** Wire topics whose current route names `brokerName` (the topics a group's master loss affects). */
  topicsOnBroker(brokerName: string): string[] {
    const out: string[] = [];
    for (const [topic, e] of this.topics)
      if (e.route.brokerDatas.some((b) => b.brokerName === brokerName)) out.push(topic);
    return out;
  }

  private evictIdleTopics(): void {
    const idleMs =
      this.config.topicIdleMs ??
      Math.max(TOPIC_IDLE_INTERVALS * this.config.pollNameServerInterval, MIN_TOPIC_IDLE_MS);
    const idleBefore = this.clock() - idleMs;
    for (const topic of [...this.topics.keys()]) {
      if (this.pins.has(topic) || (this.lastUsed.get(topic) ?? 0) >= idleBefore) continue;
      if (this.pending.has(`publish\0${topic}`) || this.pending.has(`subscribe\0${topic}`)) continue;
      this.topics.delete(topic);
      this.lastUsed.delete(topic);
      this.config.logger.debug('topic unused; no longer refreshed', { topic });
      this.emit('topicEvicted', topic);
    }
  }

  /** Java `cleanOfflineBroker`: forget broker addresses that left every route. */
  cleanOfflineBrokers(): void {
    const live = new Map<string, Set<string>>();
    for (const e of this.topics.values())
      for (const b of e.route.brokerDatas) {
        let set = live.get(b.brokerName);
        if (set === undefined) live.set(b.brokerName, (set = new Set()));
        for (const addr of Object.values(b.brokerAddrs)) set.add(addr);
      }
    const gone: [string, string][] = [];
    for (const [name, ids] of [...this.brokers]) {
      const keep = live.get(name);
      const next = new Map([...ids].filter(([, addr]) => keep?.has(addr) === true));
      if (next.size === ids.size) continue;
      if (next.size === 0) this.brokers.delete(name);
      else this.brokers.set(name, next);
      for (const [, addr] of ids) if (!keep?.has(addr)) gone.push([name, addr]);
    }
    // Several broker names may share one address (a 5.x Proxy names itself as every broker):
    // the connection closes only when no broker left uses it.
    const inUse = new Set(this.brokerAddresses(true));
    for (const [name, addr] of gone) {
      if (inUse.has(addr)) continue;
      inUse.add(addr);
      this.config.logger.info('broker left every route; connection closed', { brokerName: name, addr });
      this.emit('brokerAddressRemoved', addr);
    }
  }

  /** Stops refreshing and drops listeners. */
  close(): void {
    this.closed = true;
    this.removeAllListeners();
  }
}
