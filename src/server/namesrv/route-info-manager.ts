/**
 * The NameServer's tables (Java `RouteInfoManager`): which brokers are alive, which clusters
 * they form, and which queues each topic has on which broker. Pure state; the NameServer class
 * wires it to the network and the expiry timer.
 */
import {
  dataVersionEquals,
  type ClusterInfo,
  type DataVersion,
  type TopicConfigSerializeWrapper,
} from '../../protocol/headers/register.js';
import type { BrokerData, QueueData, TopicRouteData } from '../../protocol/headers/route.js';

export interface BrokerLiveInfo {
  lastUpdateTimestamp: number;
  dataVersion: DataVersion;
  haServerAddr: string;
  /** The connection the broker registered on; its close removes the broker. */
  channel?: object;
}

export interface RegisterBrokerArgs {
  clusterName: string;
  brokerAddr: string;
  brokerName: string;
  brokerId: number;
  haServerAddr: string;
  topicConfigWrapper: TopicConfigSerializeWrapper;
  channel?: object;
  now?: number;
}

export class RouteInfoManager {
  /** topic → brokerName → queue data */
  private readonly topicQueueTable = new Map<string, Map<string, QueueData>>();
  private readonly brokerAddrTable = new Map<
    string,
    { cluster: string; brokerName: string; brokerAddrs: Map<number, string> }
  >();
  private readonly clusterAddrTable = new Map<string, Set<string>>();
  private readonly brokerLiveTable = new Map<string, BrokerLiveInfo>();

  registerBroker(args: RegisterBrokerArgs): { masterAddr?: string; haServerAddr?: string } {
    const now = args.now ?? Date.now();
    let names = this.clusterAddrTable.get(args.clusterName);
    if (!names) this.clusterAddrTable.set(args.clusterName, (names = new Set()));
    names.add(args.brokerName);

    let brokerData = this.brokerAddrTable.get(args.brokerName);
    let firstRegister = false;
    if (!brokerData) {
      firstRegister = true;
      brokerData = { cluster: args.clusterName, brokerName: args.brokerName, brokerAddrs: new Map() };
      this.brokerAddrTable.set(args.brokerName, brokerData);
    }
    // The same address under another id (a slave promoted, say) replaces the old entry.
    for (const [id, addr] of brokerData.brokerAddrs) {
      if (addr === args.brokerAddr && id !== args.brokerId) brokerData.brokerAddrs.delete(id);
    }
    const previous = brokerData.brokerAddrs.get(args.brokerId);
    if (previous !== undefined && previous !== args.brokerAddr) this.brokerLiveTable.delete(previous);
    firstRegister ||= previous === undefined || previous !== args.brokerAddr;
    brokerData.brokerAddrs.set(args.brokerId, args.brokerAddr);

    const live = this.brokerLiveTable.get(args.brokerAddr);
    if (args.brokerId === 0) {
      const changed = !live || !dataVersionEquals(live.dataVersion, args.topicConfigWrapper.dataVersion);
      if (firstRegister || changed) this.updateQueueData(args.brokerName, args.topicConfigWrapper);
    }
    this.brokerLiveTable.set(args.brokerAddr, {
      lastUpdateTimestamp: now,
      dataVersion: args.topicConfigWrapper.dataVersion,
      haServerAddr: args.haServerAddr,
      channel: args.channel,
    });

    if (args.brokerId !== 0) {
      const masterAddr = brokerData.brokerAddrs.get(0);
      if (masterAddr !== undefined) {
        const master = this.brokerLiveTable.get(masterAddr);
        return { masterAddr, ...(master ? { haServerAddr: master.haServerAddr } : {}) };
      }
    }
    return {};
  }

  /** Replaces this broker's queue data with its current topic table (topics it dropped go away). */
  private updateQueueData(brokerName: string, wrapper: TopicConfigSerializeWrapper): void {
    const present = new Set<string>();
    for (const [topic, config] of Object.entries(wrapper.topicConfigTable)) {
      present.add(topic);
      let byBroker = this.topicQueueTable.get(topic);
      if (!byBroker) this.topicQueueTable.set(topic, (byBroker = new Map()));
      byBroker.set(brokerName, {
        brokerName,
        readQueueNums: config.readQueueNums,
        writeQueueNums: config.writeQueueNums,
        perm: config.perm,
        topicSysFlag: config.topicSysFlag,
      });
    }
    for (const [topic, byBroker] of this.topicQueueTable) {
      if (present.has(topic)) continue;
      if (byBroker.delete(brokerName) && byBroker.size === 0) this.topicQueueTable.delete(topic);
    }
  }

  unregisterBroker(clusterName: string, brokerAddr: string, brokerName: string, brokerId: number): void {
    this.brokerLiveTable.delete(brokerAddr);
    const brokerData = this.brokerAddrTable.get(brokerName);
    if (brokerData && brokerData.brokerAddrs.get(brokerId) === brokerAddr)
      brokerData.brokerAddrs.delete(brokerId);
    if (brokerData && brokerData.brokerAddrs.size === 0) this.removeBrokerName(brokerName, clusterName);
  }

  private removeBrokerName(brokerName: string, clusterName?: string): void {
    const data = this.brokerAddrTable.get(brokerName);
    this.brokerAddrTable.delete(brokerName);
    const cluster = clusterName ?? data?.cluster;
    for (const [name, members] of this.clusterAddrTable) {
      if (cluster !== undefined && name !== cluster) continue;
      members.delete(brokerName);
      if (members.size === 0) this.clusterAddrTable.delete(name);
    }
    for (const [topic, byBroker] of this.topicQueueTable) {
      if (byBroker.delete(brokerName) && byBroker.size === 0) this.topicQueueTable.delete(topic);
    }
  }

  /** Drops the broker at `brokerAddr` from every table (expiry or closed connection). */
  destroyBroker(brokerAddr: string): boolean {
    const existed = this.brokerLiveTable.delete(brokerAddr);
    for (const [brokerName, data] of this.brokerAddrTable) {
      for (const [id, addr] of data.brokerAddrs) {
        if (addr === brokerAddr) data.brokerAddrs.delete(id);
      }
      if (data.brokerAddrs.size === 0) this.removeBrokerName(brokerName, data.cluster);
    }
    return existed;
  }

  /** Addresses of brokers that registered on `channel`. */
  brokersOnChannel(channel: object): string[] {
    const out: string[] = [];
    for (const [addr, live] of this.brokerLiveTable) if (live.channel === channel) out.push(addr);
    return out;
  }

  /** Removes brokers whose last registration is older than `expiryMs`; returns their addresses. */
  scanNotActiveBroker(expiryMs: number, now: number = Date.now()): string[] {
    const expired: string[] = [];
    for (const [addr, live] of this.brokerLiveTable) {
      if (now - live.lastUpdateTimestamp > expiryMs) expired.push(addr);
    }
    for (const addr of expired) this.destroyBroker(addr);
    return expired;
  }

  touch(brokerAddr: string, now: number = Date.now()): void {
    const live = this.brokerLiveTable.get(brokerAddr);
    if (live) live.lastUpdateTimestamp = now;
  }

  brokerDataVersion(brokerAddr: string): DataVersion | undefined {
    return this.brokerLiveTable.get(brokerAddr)?.dataVersion;
  }

  isTopicConfigChanged(brokerAddr: string, version: DataVersion | undefined): boolean {
    const current = this.brokerLiveTable.get(brokerAddr)?.dataVersion;
    return current === undefined || version === undefined || !dataVersionEquals(current, version);
  }

  private brokerDataJson(name: string): BrokerData | undefined {
    const data = this.brokerAddrTable.get(name);
    if (!data) return undefined;
    const brokerAddrs: Record<string, string> = {};
    for (const [id, addr] of [...data.brokerAddrs].sort((a, b) => a[0] - b[0]))
      brokerAddrs[String(id)] = addr;
    return { cluster: data.cluster, brokerName: data.brokerName, brokerAddrs };
  }

  /** The route of `topic`, or undefined when no live broker serves it (TOPIC_NOT_EXIST). */
  pickupTopicRouteData(topic: string): TopicRouteData | undefined {
    const byBroker = this.topicQueueTable.get(topic);
    if (!byBroker || byBroker.size === 0) return undefined;
    const queueDatas = [...byBroker.values()].sort((a, b) =>
      a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0,
    );
    const brokerDatas: BrokerData[] = [];
    for (const q of queueDatas) {
      const data = this.brokerDataJson(q.brokerName);
      if (data) brokerDatas.push(data);
    }
    if (brokerDatas.length === 0) return undefined;
    return { brokerDatas, queueDatas: queueDatas.map((q) => ({ ...q })), filterServerTable: {} };
  }

  clusterInfo(): ClusterInfo {
    const brokerAddrTable: Record<string, BrokerData> = {};
    for (const name of [...this.brokerAddrTable.keys()].sort()) {
      const data = this.brokerDataJson(name);
      if (data) brokerAddrTable[name] = data;
    }
    const clusterAddrTable: Record<string, string[]> = {};
    for (const cluster of [...this.clusterAddrTable.keys()].sort())
      clusterAddrTable[cluster] = [...this.clusterAddrTable.get(cluster)!].sort();
    return { brokerAddrTable, clusterAddrTable };
  }

  /**
   * DELETE_TOPIC_IN_NAMESRV: with `clusterName`, drops the queues of that cluster's brokers (the
   * topic goes when none is left); without, drops the topic.
   */
  deleteTopic(topic: string, clusterName?: string): void {
    const queues = this.topicQueueTable.get(topic);
    if (!queues) return;
    if (clusterName === undefined || clusterName === '') {
      this.topicQueueTable.delete(topic);
      return;
    }
    for (const brokerName of this.clusterAddrTable.get(clusterName) ?? []) queues.delete(brokerName);
    if (queues.size === 0) this.topicQueueTable.delete(topic);
  }

  /** GET_TOPICS_BY_CLUSTER: topics with a queue on any broker of `cluster`. */
  topicsByCluster(cluster: string): string[] {
    const brokers = this.clusterAddrTable.get(cluster);
    if (!brokers) return [];
    return [...this.topicQueueTable]
      .filter(([, queues]) => [...queues.keys()].some((b) => brokers.has(b)))
      .map(([topic]) => topic)
      .sort();
  }

  allTopics(): string[] {
    return [...this.topicQueueTable.keys()].sort();
  }

  liveBrokerAddrs(): string[] {
    return [...this.brokerLiveTable.keys()];
  }
}
