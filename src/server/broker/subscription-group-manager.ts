/**
 * The broker's subscription groups (Java `SubscriptionGroupManager`): the built-in groups, those
 * created by UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, and — like Java's `autoCreateSubscriptionGroup`
 * — every group that consumes here, persisted to `config/subscriptionGroup.json`.
 */
import type { Logger } from '../../observability/logger.js';
import {
  BUILT_IN_SUBSCRIPTION_GROUPS,
  encodeSubscriptionGroupWrapper,
  parseSubscriptionGroupWrapper,
  subscriptionGroupConfig,
  type SubscriptionGroupConfig,
  type SubscriptionGroupWrapper,
} from '../../protocol/body/admin.js';
import type { DataVersion } from '../../protocol/headers/register.js';
import { StateFile } from './state-file.js';

export class SubscriptionGroupManager {
  private readonly table = new Map<string, SubscriptionGroupConfig>();
  private dataVersion: DataVersion = { counter: 0, timestamp: Date.now() };
  private readonly state: StateFile;

  constructor(
    file: string,
    private readonly logger: Logger,
  ) {
    this.state = new StateFile(file);
    for (const name of BUILT_IN_SUBSCRIPTION_GROUPS) this.table.set(name, subscriptionGroupConfig(name));
  }

  async load(): Promise<void> {
    await this.state.load(
      (text) => {
        const w = parseSubscriptionGroupWrapper(text);
        for (const [name, c] of Object.entries(w.subscriptionGroupTable)) this.table.set(name, c);
        this.dataVersion = { counter: w.dataVersion.counter, timestamp: Date.now() };
      },
      this.logger,
      'subscription groups',
    );
  }

  get(group: string): SubscriptionGroupConfig | undefined {
    return this.table.get(group);
  }

  /** Creates or replaces a group's config. */
  update(config: SubscriptionGroupConfig): void {
    this.table.set(config.groupName, { ...config });
    this.changed();
  }

  /** Adds `group` with the defaults unless it exists (Java auto-creation on consume). */
  ensure(group: string): void {
    if (this.table.has(group)) return;
    this.table.set(group, subscriptionGroupConfig(group));
    this.changed();
  }

  delete(group: string): boolean {
    const existed = this.table.delete(group);
    if (existed) this.changed();
    return existed;
  }

  wrapper(): SubscriptionGroupWrapper {
    return {
      dataVersion: { ...this.dataVersion },
      subscriptionGroupTable: Object.fromEntries([...this.table].map(([k, v]) => [k, { ...v }])),
    };
  }

  private changed(): void {
    this.dataVersion = { counter: this.dataVersion.counter + 1, timestamp: Date.now() };
    void this.state
      .save(() => encodeSubscriptionGroupWrapper(this.wrapper()).toString('utf8'))
      .catch((err: unknown) => this.logger.error('persisting subscription groups failed', { error: err }));
  }

  /** Resolves once no write is in flight. */
  settled(): Promise<void> {
    return this.state.settled();
  }
}
