/**
 * The broker's topic table (Java `TopicConfigManager`): system topics, TBW102 auto-creation
 * (docs/protocol.md §7.5), retry/DLQ topics, and persistence to `config/topics.json`. Every change
 * bumps the data version and tells the broker to register with the NameServers at once.
 */
import { readFile } from 'node:fs/promises';
import { isInherited, PermName } from '../../protocol/perm.js';
import { DEFAULT_TOPIC, SystemTopic } from '../../protocol/validation.js';
import { replyTopicOf } from '../../protocol/headers/reply.js';
import { alterTopicAttributes } from '../../protocol/topic-attributes.js';
import type { Logger } from '../../observability/logger.js';
import {
  parseTopicConfigSerializeWrapper,
  type DataVersion,
  type TopicConfig,
  type TopicConfigSerializeWrapper,
} from '../../protocol/headers/register.js';
import { StateFile } from './state-file.js';

const RW = PermName.PERM_READ | PermName.PERM_WRITE;

export interface TopicConfigManagerOptions {
  file: string;
  brokerName: string;
  clusterName: string;
  autoCreateTopicEnable: boolean;
  defaultTopicQueueNums: number;
  delayLevelCount: number;
  logger: Logger;
  /** Called after every change (the broker registers with the NameServers). */
  onChange: () => void;
}

export function newTopicConfig(
  topicName: string,
  queues: number,
  perm: number = RW,
  topicSysFlag = 0,
): TopicConfig {
  return {
    topicName,
    readQueueNums: queues,
    writeQueueNums: queues,
    perm,
    topicFilterType: 'SINGLE_TAG',
    topicSysFlag,
    order: false,
  };
}

export class TopicConfigManager {
  private readonly table = new Map<string, TopicConfig>();
  private dataVersion: DataVersion = { counter: 0, timestamp: Date.now() };
  private readonly state: StateFile;

  constructor(private readonly options: TopicConfigManagerOptions) {
    this.state = new StateFile(options.file);
    const o = options;
    this.putSystem(newTopicConfig(SystemTopic.RMQ_SYS_SELF_TEST_TOPIC, 1));
    if (o.autoCreateTopicEnable)
      this.putSystem(newTopicConfig(DEFAULT_TOPIC, o.defaultTopicQueueNums, RW | PermName.PERM_INHERIT));
    this.putSystem(newTopicConfig(SystemTopic.RMQ_SYS_BENCHMARK_TOPIC, 1024));
    this.putSystem(newTopicConfig(o.clusterName, 16, RW | PermName.PERM_INHERIT));
    this.putSystem(newTopicConfig(o.brokerName, 1, RW | PermName.PERM_INHERIT));
    this.putSystem(newTopicConfig(SystemTopic.RMQ_SYS_OFFSET_MOVED_EVENT, 1));
    this.putSystem(newTopicConfig(SystemTopic.RMQ_SYS_SCHEDULE_TOPIC, o.delayLevelCount));
    this.putSystem(newTopicConfig(SystemTopic.RMQ_SYS_TRANS_HALF_TOPIC, 1));
    this.putSystem(newTopicConfig(replyTopicOf(o.clusterName), 1));
  }

  private putSystem(config: TopicConfig): void {
    this.table.set(config.topicName, config);
  }

  /** Loads `config/topics.json` when it exists; system topics keep their built-in settings. */
  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.options.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    const wrapper = parseTopicConfigSerializeWrapper(JSON.parse(text));
    for (const [name, config] of Object.entries(wrapper.topicConfigTable)) {
      if (name === DEFAULT_TOPIC && !this.options.autoCreateTopicEnable) continue;
      this.table.set(name, config);
    }
    this.dataVersion = { counter: wrapper.dataVersion.counter, timestamp: Date.now() };
  }

  get(topic: string): TopicConfig | undefined {
    return this.table.get(topic);
  }

  topics(): TopicConfig[] {
    return [...this.table.values()];
  }

  wrapper(): TopicConfigSerializeWrapper {
    return {
      dataVersion: { ...this.dataVersion },
      topicConfigTable: Object.fromEntries([...this.table].map(([k, v]) => [k, { ...v }])),
    };
  }

  get version(): DataVersion {
    return { ...this.dataVersion };
  }

  /**
   * Creates or replaces a topic (UPDATE_AND_CREATE_TOPIC). `attributes` is the request's
   * `+key=value,-key` text, applied to the topic's current attributes as Java's broker does
   * (protocol/topic-attributes.ts): without it the topic keeps the ones it has. A refused
   * modification throws (Java's message) and changes nothing.
   */
  update(config: TopicConfig, attributes?: string): void {
    const current = this.table.get(config.topicName);
    const next = alterTopicAttributes(current === undefined, current?.attributes ?? {}, attributes);
    const stored: TopicConfig = { ...config };
    // Left out when empty, so a topic without attributes looks as it does on a 4.x broker.
    if (Object.keys(next).length > 0) stored.attributes = next;
    else delete stored.attributes;
    this.table.set(config.topicName, stored);
    this.changed();
  }

  delete(topic: string): boolean {
    const existed = this.table.delete(topic);
    if (existed) this.changed();
    return existed;
  }

  /**
   * Java `createTopicInSendMessageMethod`: `topic` inherits from `defaultTopic` when that one has
   * PERM_INHERIT, with min(client queue nums, default topic write queues) queues. Undefined when
   * creation is not allowed. With `commit` false the new config is only returned: the send
   * processor adds it with `commitCreated` once the message is stored, so a rejected send leaves
   * the table as it was (Java creates the topic first).
   */
  createTopicInSendMessageMethod(
    topic: string,
    defaultTopic: string,
    clientQueueNums: number,
    topicSysFlag: number,
    commit = true,
  ): TopicConfig | undefined {
    const existing = this.table.get(topic);
    if (existing) return existing;
    const def = this.table.get(defaultTopic);
    if (!def) return undefined;
    let perm = def.perm;
    if (defaultTopic === DEFAULT_TOPIC && !this.options.autoCreateTopicEnable) perm = RW;
    if (!isInherited(perm)) {
      this.options.logger.warn('cannot auto-create topic: default topic has no inherit permission', {
        topic,
        defaultTopic,
        perm,
      });
      return undefined;
    }
    const queues = Math.max(1, Math.min(clientQueueNums, def.writeQueueNums));
    const config: TopicConfig = {
      topicName: topic,
      readQueueNums: queues,
      writeQueueNums: queues,
      perm: perm & ~PermName.PERM_INHERIT,
      topicFilterType: def.topicFilterType,
      topicSysFlag,
      order: false,
    };
    if (commit) this.commitCreated(config);
    return config;
  }

  /** Adds a config made by a `createTopicIn…` method with `commit` false, unless one exists by now. */
  commitCreated(config: TopicConfig): void {
    if (this.table.has(config.topicName)) return;
    this.table.set(config.topicName, config);
    this.options.logger.info('auto-created topic', {
      topic: config.topicName,
      queues: config.writeQueueNums,
    });
    this.changed();
  }

  /** Java `createTopicInSendMessageBackMethod`: retry and DLQ topics, created on demand. */
  createTopicInSendMessageBackMethod(
    topic: string,
    queues: number,
    perm: number,
    topicSysFlag = 0,
    commit = true,
  ): TopicConfig {
    const existing = this.table.get(topic);
    if (existing) return existing;
    const config = newTopicConfig(topic, queues, perm, topicSysFlag);
    if (commit) this.commitCreated(config);
    return config;
  }

  private changed(): void {
    this.dataVersion = { counter: this.dataVersion.counter + 1, timestamp: Date.now() };
    void this.persist().catch((err: unknown) =>
      this.options.logger.error('persisting topics failed', { error: err }),
    );
    this.options.onChange();
  }

  /** Writes the table atomically (temp file + rename); writes coalesce, the latest table wins. */
  persist(): Promise<void> {
    return this.state.save(() => JSON.stringify(this.wrapper(), null, 2));
  }

  /** Resolves once no write is in flight or queued. */
  settled(): Promise<void> {
    return this.state.settled();
  }
}
