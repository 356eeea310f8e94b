/**
 * Route data as the client uses it (docs/protocol.md §7.2–§7.5): the publish view of a topic
 * (writable queues on brokers that have a master) and the TBW102 fallback.
 */
import { MASTER_ID } from '../protocol/headers/route.js';
import { isReadable, isWriteable } from '../protocol/perm.js';

/** Structural view of `TopicRouteData` (protocol/headers/route.ts); only what the client reads. */
export interface RouteQueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}
export interface RouteBrokerData {
  cluster: string;
  brokerName: string;
  /** brokerId (as a decimal string) → address; `"0"` is the master. */
  brokerAddrs: Readonly<Record<string, string>>;
}
export interface RouteData {
  orderTopicConf?: string | undefined;
  queueDatas: RouteQueueData[];
  brokerDatas: RouteBrokerData[];
}

export interface MessageQueue {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
}

/** Master address of `brokerName` in `route`, if any. */
export function masterAddress(route: RouteData, brokerName: string): string | undefined {
  for (const b of route.brokerDatas) if (b.brokerName === brokerName) return b.brokerAddrs[MASTER_ID];
  return undefined;
}

/**
 * Java `topicRouteData2TopicPublishInfo`: orderTopicConf (`name:n;name:n`) wins; otherwise each
 * writable QueueData, sorted by broker name, whose broker has a master gives queues
 * 0..writeQueueNums-1.
 */
export function publishQueues(topic: string, route: RouteData): MessageQueue[] {
  const out: MessageQueue[] = [];
  if (route.orderTopicConf) {
    for (const item of route.orderTopicConf.split(';')) {
      const [brokerName, nums] = item.split(':');
      const n = Number(nums);
      if (!brokerName || !Number.isInteger(n)) continue;
      for (let i = 0; i < n; i++) out.push({ topic, brokerName, queueId: i });
    }
    return out;
  }
  const sorted = [...route.queueDatas].sort((a, b) =>
    a.brokerName < b.brokerName ? -1 : a.brokerName > b.brokerName ? 1 : 0,
  );
  for (const qd of sorted) {
    if (!isWriteable(qd.perm)) continue;
    if (masterAddress(route, qd.brokerName) === undefined) continue;
    for (let i = 0; i < qd.writeQueueNums; i++) out.push({ topic, brokerName: qd.brokerName, queueId: i });
  }
  return out;
}

/**
 * Java `topicRouteData2TopicSubscribeInfo`: queues 0..readQueueNums-1 of every readable
 * QueueData (the consumer's view; a broker without a master still serves pulls from a slave).
 */
export function subscribeQueues(topic: string, route: RouteData): MessageQueue[] {
  const out: MessageQueue[] = [];
  for (const qd of route.queueDatas) {
    if (!isReadable(qd.perm)) continue;
    for (let i = 0; i < qd.readQueueNums; i++) out.push({ topic, brokerName: qd.brokerName, queueId: i });
  }
  return out;
}

/** The TBW102 route used for a topic that does not exist yet: queue nums capped (§7.5 step 3). */
export function capDefaultTopicRoute<R extends RouteData>(route: R, defaultTopicQueueNums: number): R {
  return {
    ...route,
    queueDatas: route.queueDatas.map((qd) => {
      const n = Math.min(defaultTopicQueueNums, qd.readQueueNums);
      return { ...qd, readQueueNums: n, writeQueueNums: n };
    }),
  };
}
