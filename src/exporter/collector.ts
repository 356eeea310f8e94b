/**
 * The cluster collector: one scrape reads the cluster's figures through Admin (never the
 * protocol) and returns them as metric families under rocketmq-exporter's names and labels
 * (docs/observability.md §3 lists which of its series we serve). A broker that does not
 * answer within the Admin's request timeout is left out of that scrape and counted in
 * `rocketmq_exporter_scrape_errors_total`; the scrape itself never waits past `scrapeTimeoutMs`.
 */
import type { Admin } from '../admin/admin.js';
import type { BrokerRuntimeStats, ClusterInfoResult, ConsumerProgress } from '../admin/types.js';
import {
  BrokerResponseError,
  BrokerUnavailableError,
  ConsumerGroupNotFoundError,
  RequestNotSupportedError,
} from '../errors.js';
import {
  BROKER_RUNTIME_GAUGES,
  BROKER_RUNTIME_LABELS,
  brokerRuntimeSamples,
} from './broker-runtime-gauges.js';
import type { MetricFamily, MetricSample } from './exposition.js';
import { writeExposition } from './exposition.js';
import {
  validateClusterCollectorOptions,
  type ClusterCollectorOptions,
  type ResolvedClusterCollectorOptions,
} from './options.js';

const RETRY_PREFIX = '%RETRY%';
const DLQ_PREFIX = '%DLQ%';
/** Java MessageModel.CLUSTERING.ordinal(), as the exporter prints it in `msgModel`. */
const CLUSTERING_ORDINAL = '1';

type Labels = Record<string, string>;

/** One family being filled during a scrape. */
class Family {
  readonly samples: MetricSample[] = [];
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly type: 'gauge' | 'counter' = 'gauge',
  ) {}
  add(labels: Labels, value: number): void {
    this.samples.push({ labels, value });
  }
}

const BROKER = ['cluster', 'brokerIP', 'broker'] as const;
const TOPIC = ['cluster', 'broker', 'topic'] as const;
const GROUP_TOPIC = ['cluster', 'broker', 'topic', 'group'] as const;
const GROUP_DIFF = ['group', 'topic', 'countOfOnlineConsumers', 'msgModel'] as const;

/** The families of one scrape, named and labelled as rocketmq-exporter's RMQMetricsCollector. */
function newFamilies() {
  return {
    brokerTps: new Family('rocketmq_broker_tps', 'Messages put per second on the broker (1 min)', BROKER),
    brokerQps: new Family('rocketmq_broker_qps', 'Messages got per second from the broker (1 min)', BROKER),
    producerOffset: new Family(
      'rocketmq_producer_offset',
      'Sum of the max offsets of the topic on the broker',
      TOPIC,
    ),
    retryOffset: new Family('rocketmq_topic_retry_offset', 'Sum of the max offsets of a retry topic', TOPIC),
    dlqOffset: new Family('rocketmq_topic_dlq_offset', 'Sum of the max offsets of the group DLQ topic', [
      'cluster',
      'broker',
      'group',
    ]),
    producerTps: new Family(
      'rocketmq_producer_tps',
      'Messages put per second into the topic on the broker',
      TOPIC,
    ),
    producerSize: new Family(
      'rocketmq_producer_message_size',
      'Bytes put per second into the topic on the broker (1 min)',
      TOPIC,
    ),
    consumerTps: new Family(
      'rocketmq_consumer_tps',
      'Messages consumed per second by the group from the topic on the broker',
      GROUP_TOPIC,
    ),
    consumerSize: new Family(
      'rocketmq_consumer_message_size',
      'Bytes got per second by the group from the topic on the broker (1 min)',
      GROUP_TOPIC,
    ),
    consumerOffset: new Family(
      'rocketmq_consumer_offset',
      'Sum of the group committed offsets of the topic on the broker',
      GROUP_TOPIC,
    ),
    groupDiff: new Family(
      'rocketmq_group_diff',
      'Messages of the topic the group has not consumed',
      GROUP_DIFF,
    ),
    groupRetryDiff: new Family(
      'rocketmq_group_retrydiff',
      'Messages of the retry topic not consumed',
      GROUP_DIFF,
    ),
    groupDlqDiff: new Family('rocketmq_group_dlqdiff', 'Messages of the DLQ topic not consumed', GROUP_DIFF),
    groupCount: new Family('rocketmq_group_count', 'Online consumers of the group', [
      'caddr',
      'localaddr',
      'group',
    ]),
    latency: new Family(
      'rocketmq_group_get_latency_by_storetime',
      'Age in ms of the oldest message the group has not consumed (0 when caught up)',
      GROUP_TOPIC,
    ),
  };
}
type Families = ReturnType<typeof newFamilies>;

/** The `rocketmq_brokeruntime_*` families of one scrape, by name (broker-runtime-gauges.ts). */
function newRuntimeFamilies(): Map<string, Family> {
  return new Map(
    BROKER_RUNTIME_GAUGES.map((g) => [g.name, new Family(g.name, g.help, BROKER_RUNTIME_LABELS)]),
  );
}

/** What a scrape knows of the brokers: cluster by broker name, and the ones that did not answer. */
interface Brokers {
  clusterOf: Map<string, string>;
  down: Set<string>;
  /** broker name → its master address. */
  masters: Map<string, string>;
}

export class ClusterCollector {
  readonly options: ResolvedClusterCollectorOptions;
  private readonly admin: Admin;
  /** `broker\0stage` → failed fetches since this collector was made. */
  private readonly errors = new Map<string, number>();
  /** Previous scrape's offsets, for the TPS families: key → [offset sum, at ms]. */
  private previous = new Map<string, [number, number]>();
  /** Brokers that answered VIEW_BROKER_STATS_DATA with "not supported": not asked again. */
  private readonly noStatsData = new Set<string>();

  constructor(options: ClusterCollectorOptions) {
    this.options = validateClusterCollectorOptions(options);
    this.admin = this.options.admin;
  }

  /** Failed fetches so far, by broker (`""` when not one broker's) and stage. */
  scrapeErrors(): Array<{ broker: string; stage: string; count: number }> {
    return [...this.errors].map(([k, count]) => {
      const [broker = '', stage = ''] = k.split('\0');
      return { broker, stage, count };
    });
  }

  /** One scrape as Prometheus text (exposition.ts). */
  async scrape(): Promise<string> {
    return writeExposition(await this.collect());
  }

  /** One scrape: every family, empty ones included (so HELP/TYPE are always there). */
  async collect(): Promise<MetricFamily[]> {
    const deadline = AbortSignal.timeout(this.options.scrapeTimeoutMs);
    const f = newFamilies();
    const runtime = newRuntimeFamilies();
    const now = Date.now();
    const offsets = new Map<string, number>();
    const brokers = await this.brokers(f, runtime, deadline);
    if (brokers !== undefined) {
      const topics = await this.guard('', 'topic_list', () =>
        this.admin.topics({ signal: this.signal(deadline) }),
      );
      if (topics !== undefined) {
        await this.each(topics, (t) => this.topic(t, brokers, f, offsets, deadline));
      }
    }
    this.rates(f, offsets, now);
    const errors = new Family(
      'rocketmq_exporter_scrape_errors_total',
      'Fetches that failed or timed out, across scrapes, by broker and stage',
      ['broker', 'stage'],
      'counter',
    );
    for (const { broker, stage, count } of this.scrapeErrors()) errors.add({ broker, stage }, count);
    return [...Object.values(f), ...runtime.values(), errors];
  }

  private signal(deadline: AbortSignal): AbortSignal {
    // each broker's wait is bounded by the Admin's request timeout (a BrokerUnavailableError the
    // report calls step past); this bounds the whole scrape
    return deadline;
  }

  /** Runs a fetch; a failure is counted (by its broker when it names one) and yields undefined. */
  private async guard<T>(broker: string, stage: string, fetch: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fetch();
    } catch (err) {
      this.count(broker || (err instanceof BrokerUnavailableError ? err.address : ''), stage);
      return undefined;
    }
  }

  private count(broker: string, stage: string): void {
    const key = `${broker}\0${stage}`;
    this.errors.set(key, (this.errors.get(key) ?? 0) + 1);
  }

  /** `items` through `work`, `concurrency` at a time. */
  private async each<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const run = async (): Promise<void> => {
      while (next < items.length) await work(items[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, items.length) }, run));
  }

  /** Cluster info, then each master's runtime stats (broker TPS/QPS, runtime gauges); a master that fails is down. */
  private async brokers(
    f: Families,
    runtime: Map<string, Family>,
    deadline: AbortSignal,
  ): Promise<Brokers | undefined> {
    const info: ClusterInfoResult | undefined = await this.guard('', 'cluster_info', () =>
      this.admin.clusterInfo({ signal: this.signal(deadline) }),
    );
    if (info === undefined) return undefined;
    const b: Brokers = { clusterOf: new Map(), down: new Set(), masters: new Map() };
    for (const a of info.brokers) {
      b.clusterOf.set(a.brokerName, a.cluster);
      if (a.brokerId === 0) b.masters.set(a.brokerName, a.address);
    }
    await this.each([...b.masters], async ([name, address]) => {
      let stats: BrokerRuntimeStats;
      try {
        stats = await this.admin.brokerRuntimeStats(address, { signal: this.signal(deadline) });
      } catch (err) {
        this.count(name, 'runtime_stats');
        // A broker that answered with an error is up: a real 4.9 broker in its first second answers
        // SYSTEM_ERROR (its TPS samples are still empty) and serves everything else.
        if (!(err instanceof BrokerResponseError || err instanceof RequestNotSupportedError))
          b.down.add(name);
        return;
      }
      const labels = { cluster: b.clusterOf.get(name) ?? '', brokerIP: address, broker: name };
      // the exporter reads the broker's one-minute figure; GET_BROKER_RUNTIME_INFO lists 10 s, 1 min, 10 min
      f.brokerTps.add(labels, stats.putTps[1] ?? 0);
      f.brokerQps.add(labels, stats.getTransferredTps[1] ?? 0);
      for (const { gauge, sample } of brokerRuntimeSamples(labels.cluster, stats))
        runtime.get(gauge.name)?.add(sample.labels, sample.value);
    });
    return b;
  }

  /** One topic: its offsets per broker, then (not for a DLQ topic) each group consuming it. */
  private async topic(
    topic: string,
    b: Brokers,
    f: Families,
    offsets: Map<string, number>,
    deadline: AbortSignal,
  ): Promise<void> {
    const report = await this.guard('', 'topic_stats', () =>
      this.admin.topicStatsReport(topic, { signal: this.signal(deadline) }),
    );
    if (report === undefined) return;
    for (const u of report.unreachable)
      if (!b.down.has(u.brokerName)) this.count(u.brokerName, 'topic_stats');
    const perBroker = new Map<string, number>();
    for (const q of report.queues)
      perBroker.set(q.brokerName, (perBroker.get(q.brokerName) ?? 0) + q.maxOffset);
    for (const [broker, sum] of perBroker) {
      const cluster = b.clusterOf.get(broker) ?? '';
      if (topic.startsWith(DLQ_PREFIX))
        f.dlqOffset.add({ cluster, broker, group: topic.slice(DLQ_PREFIX.length) }, sum);
      else if (topic.startsWith(RETRY_PREFIX)) f.retryOffset.add({ cluster, broker, topic }, sum);
      else {
        f.producerOffset.add({ cluster, broker, topic }, sum);
        offsets.set(`p\0${cluster}\0${broker}\0${topic}`, sum);
        await this.statsData(
          b,
          broker,
          'TOPIC_PUT_SIZE',
          topic,
          f.producerSize,
          { cluster, broker, topic },
          deadline,
        );
      }
    }
    if (topic.startsWith(DLQ_PREFIX)) return;
    const groups = await this.guard('', 'topic_consumers', () =>
      this.admin.topicConsumers(topic, { signal: this.signal(deadline) }),
    );
    for (const group of groups ?? []) await this.group(topic, group, b, f, offsets, deadline);
  }

  /** One group on one topic: diff, committed offsets, online members, latency. */
  private async group(
    topic: string,
    group: string,
    b: Brokers,
    f: Families,
    offsets: Map<string, number>,
    deadline: AbortSignal,
  ): Promise<void> {
    let progress: ConsumerProgress | undefined;
    try {
      progress = await this.admin.consumerProgress(group, topic, { signal: this.signal(deadline) });
    } catch (err) {
      if (err instanceof ConsumerGroupNotFoundError) return; // no offsets and nobody online: nothing to show
      this.count(err instanceof BrokerUnavailableError ? err.address : '', 'consume_stats');
      return;
    }
    const members = progress.members;
    if (!topic.startsWith(RETRY_PREFIX))
      f.groupCount.add(
        {
          caddr: members.map((m) => m.clientAddr).join(','),
          localaddr: members.map((m) => m.clientId).join(','),
          group,
        },
        members.length,
      );
    // as the exporter: a broadcasting group's diff means nothing (each member has its own offsets)
    const model = members.length > 0 ? await this.messageModel(group, deadline) : 'CLUSTERING';
    const diffLabels = {
      group,
      topic,
      countOfOnlineConsumers: String(members.length),
      msgModel: CLUSTERING_ORDINAL,
    };
    if (model === 'CLUSTERING') {
      const diff = topic.startsWith(RETRY_PREFIX) ? f.groupRetryDiff : f.groupDiff;
      diff.add(diffLabels, progress.totalLag);
    }
    const perBroker = new Map<string, { offset: number; latency: number }>();
    const now = Date.now();
    for (const q of progress.queues) {
      const e = perBroker.get(q.brokerName) ?? { offset: 0, latency: 0 };
      e.offset += q.consumerOffset;
      perBroker.set(q.brokerName, e);
      if (model === 'CLUSTERING' && q.lag > 0 && !b.down.has(q.brokerName)) {
        const page = await this.guard(q.brokerName, 'latency', () =>
          this.admin.messagesOfQueue(q, q.consumerOffset, 1, { signal: this.signal(deadline) }),
        );
        const oldest = page?.messages[0];
        if (oldest !== undefined) e.latency = Math.max(e.latency, now - oldest.storeTimestamp);
      }
    }
    for (const [broker, e] of perBroker) {
      if (b.down.has(broker)) continue;
      const cluster = b.clusterOf.get(broker) ?? '';
      const labels = { cluster, broker, topic, group };
      f.consumerOffset.add(labels, e.offset);
      offsets.set(`c\0${cluster}\0${broker}\0${topic}\0${group}`, e.offset);
      if (model === 'CLUSTERING') f.latency.add(labels, Math.max(0, e.latency));
      if (!topic.startsWith(RETRY_PREFIX))
        await this.statsData(
          b,
          broker,
          'GROUP_GET_SIZE',
          `${topic}@${group}`,
          f.consumerSize,
          labels,
          deadline,
        );
    }
  }

  private async messageModel(group: string, deadline: AbortSignal): Promise<string> {
    const c = await this.admin
      .consumerConnections(group, { signal: this.signal(deadline) })
      .catch(() => undefined);
    return c?.messageModel || 'CLUSTERING';
  }

  /**
   * A VIEW_BROKER_STATS_DATA item's minute TPS (bytes per second for the *_SIZE items), as the
   * exporter reads it. An item the broker never counted (SYSTEM_ERROR) is no sample; a broker that
   * does not serve the request (the embedded one) is not asked again and is no error.
   */
  private async statsData(
    b: Brokers,
    broker: string,
    statsName: string,
    statsKey: string,
    family: Family,
    labels: Labels,
    deadline: AbortSignal,
  ): Promise<void> {
    const address = b.masters.get(broker);
    if (address === undefined || b.down.has(broker) || this.noStatsData.has(address)) return;
    try {
      const data = await this.admin.brokerStatsData(address, statsName, statsKey, {
        signal: this.signal(deadline),
      });
      family.add(labels, data.statsMinute.tps);
    } catch (err) {
      if (err instanceof RequestNotSupportedError) this.noStatsData.add(address);
      else if (err instanceof BrokerUnavailableError) this.count(broker, 'stats_data');
      // else: the broker never counted this item (Java: SYSTEM_ERROR "not exist"): no sample
    }
  }

  /**
   * The TPS families from offsets: (offset now − offset at the previous scrape) / seconds between.
   * The first scrape, and a key new since the previous one, have no rate yet.
   */
  private rates(f: Families, offsets: Map<string, number>, now: number): void {
    for (const [key, value] of offsets) {
      const before = this.previous.get(key);
      if (before === undefined || now <= before[1] || value < before[0]) continue;
      const tps = Math.round(((value - before[0]) * 1000 * 100) / (now - before[1])) / 100;
      const [kind, cluster = '', broker = '', topic = '', group = ''] = key.split('\0');
      if (kind === 'p') f.producerTps.add({ cluster, broker, topic }, tps);
      else f.consumerTps.add({ cluster, broker, topic, group }, tps);
    }
    this.previous = new Map([...offsets].map(([k, v]) => [k, [v, now]]));
  }
}
