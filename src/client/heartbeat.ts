/**
 * Group membership with the brokers (docs/protocol.md §8): HEART_BEAT carrying the
 * groups every registered contributor (producer, consumer) supplies, and UNREGISTER_CLIENT for
 * a contributor's groups when it leaves. A consumer adds its ConsumerData here without touching
 * the producer. With consumers present the heartbeat goes to every broker address (slaves too,
 * as Java: a consumer may pull from a slave); producers only need the masters.
 */
import type { Logger } from '../observability/logger.js';
import { ResponseCode } from '../protocol/codes.js';
import { createRequest, type CommandDefaults } from '../protocol/command.js';
import {
  CLIENT_INNER_PRODUCER_GROUP,
  encodeHeartbeatData,
  HeartBeat,
  UnregisterClient,
  type ConsumerData,
} from '../protocol/headers/heartbeat.js';
import type { ConnectionPool } from '../remoting/pool.js';
import { Deadline } from './deadline.js';

/** Supplies groups for the heartbeat; read at each heartbeat, so it may change over time. */
export interface HeartbeatContributor {
  /** Producer groups (wire names). */
  producerGroups?(): Iterable<string>;
  /** Consumer entries (wire group names, subscriptions). */
  consumerData?(): Iterable<ConsumerData>;
}

export interface HeartbeatDeps {
  clientId: string;
  pool: ConnectionPool;
  commandDefaults: Readonly<CommandDefaults>;
  logger: Logger;
  /** Budget of one heartbeat or unregister round (mqClientApiTimeout). */
  timeoutMs: number;
  /** Known broker addresses; masters only unless `withSlaves`. */
  brokerAddresses(withSlaves: boolean): string[];
}

function groupsOf(c: HeartbeatContributor): { producers: string[]; consumers: string[] } {
  return {
    producers: [...(c.producerGroups?.() ?? [])],
    consumers: [...(c.consumerData?.() ?? [])].map((d) => d.groupName),
  };
}

export class Heartbeat {
  private readonly contributors = new Set<HeartbeatContributor>();

  constructor(private readonly deps: HeartbeatDeps) {}

  /**
   * Adds a contributor and sends a heartbeat at once. Returns false (and adds nothing) when one
   * of its producer or consumer groups is already registered in this client (Java
   * `registerProducer`/`registerConsumer`).
   */
  register(contributor: HeartbeatContributor): boolean {
    if (this.contributors.has(contributor)) return false;
    const mine = groupsOf(contributor);
    const producers = new Set(this.producerGroups());
    const consumers = new Set(this.consumerData().map((d) => d.groupName));
    if (mine.producers.some((g) => producers.has(g)) || mine.consumers.some((g) => consumers.has(g)))
      return false;
    this.contributors.add(contributor);
    void this.sendHeartbeatToAllBrokers();
    return true;
  }

  /** Removes a contributor and sends UNREGISTER_CLIENT for each of its groups to every broker. */
  async unregister(contributor: HeartbeatContributor): Promise<void> {
    if (!this.contributors.has(contributor)) return;
    const { producers, consumers } = groupsOf(contributor);
    this.contributors.delete(contributor);
    const headers = [
      ...producers.map((producerGroup) => ({ clientID: this.deps.clientId, producerGroup })),
      ...consumers.map((consumerGroup) => ({ clientID: this.deps.clientId, consumerGroup })),
    ];
    const deadline = Deadline.after(this.deps.timeoutMs);
    const addresses = this.deps.brokerAddresses(true);
    await Promise.allSettled(
      headers.flatMap((h) =>
        addresses.map((addr) =>
          this.deps.pool.request(
            addr,
            createRequest(
              UnregisterClient.code,
              UnregisterClient.encode(h),
              undefined,
              this.deps.commandDefaults,
            ),
            deadline.remaining(),
          ),
        ),
      ),
    );
  }

  /** Whether any contributor is registered (no heartbeat is sent otherwise). */
  get active(): boolean {
    return this.contributors.size > 0;
  }

  producerGroups(): string[] {
    return [...this.contributors].flatMap((c) => [...(c.producerGroups?.() ?? [])]);
  }

  consumerData(): ConsumerData[] {
    return [...this.contributors].flatMap((c) => [...(c.consumerData?.() ?? [])]);
  }

  /** HeartbeatData body: the inner producer group (as every Java client) plus every contributor's groups. */
  body(): Buffer {
    return encodeHeartbeatData({
      clientID: this.deps.clientId,
      producerDataSet: [CLIENT_INNER_PRODUCER_GROUP, ...this.producerGroups()].map((groupName) => ({
        groupName,
      })),
      consumerDataSet: this.consumerData(),
    });
  }

  /** HEART_BEAT to one broker; resolves true when it answered SUCCESS. */
  async sendTo(address: string, timeoutMs = this.deps.timeoutMs, body = this.body()): Promise<boolean> {
    try {
      const response = await this.deps.pool.request(
        address,
        createRequest(HeartBeat.code, undefined, body, this.deps.commandDefaults),
        timeoutMs,
      );
      return response.code === ResponseCode.SUCCESS;
    } catch (err) {
      this.deps.logger.debug('heartbeat failed', { address, error: (err as Error).message });
      return false;
    }
  }

  /** Heartbeat to every broker: masters, plus slaves when a consumer is registered. */
  async sendHeartbeatToAllBrokers(): Promise<void> {
    if (!this.active) return;
    const body = this.body();
    const withSlaves = this.consumerData().length > 0;
    await Promise.all(this.deps.brokerAddresses(withSlaves).map((a) => this.sendTo(a, undefined, body)));
  }

  /** A broker address appeared in a route: heartbeat it now rather than at the next tick. */
  onBrokerAdded(address: string, slave: boolean): void {
    if (!this.active || (slave && this.consumerData().length === 0)) return;
    void this.sendTo(address);
  }
}
