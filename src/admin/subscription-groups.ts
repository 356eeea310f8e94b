/**
 * Subscription groups: the list from every master (201, as the dashboard builds its group list),
 * create/update (200) and delete (207) on every target master.
 */
import { BrokerUnavailableError, InvalidArgumentError } from '../errors.js';
import {
  BUILT_IN_SUBSCRIPTION_GROUPS,
  encodeSubscriptionGroupConfig,
  parseSubscriptionGroupWrapper,
  subscriptionGroupConfig,
  type SubscriptionGroupConfig,
} from '../protocol/body/admin.js';
import {
  DeleteSubscriptionGroup,
  GetAllSubscriptionGroupConfig,
  UpdateAndCreateSubscriptionGroup,
} from '../protocol/headers/broker-admin.js';
import type { AdminContext } from './admin-context.js';
import { checkGroupName } from './consumers.js';
import type { AdminTarget, ConsumerGroupSummary, ConsumerGroupsReport, UnreachableBroker } from './types.js';

/** Groups of the broker's own tools and services; left out of `consumerGroups()`. */
const SYSTEM_GROUPS = new Set([...BUILT_IN_SUBSCRIPTION_GROUPS, 'CID_RMQ_SYS_TRANS']);

/** Every subscription group on every master, built-in groups left out, sorted by name. */
export async function consumerGroups(
  ctx: AdminContext,
  includeSystem = false,
): Promise<ConsumerGroupSummary[]> {
  const report = await consumerGroupsReport(ctx, includeSystem);
  const down = report.unreachable[0];
  if (down) throw down.error;
  return report.groups;
}

/** As consumerGroups, but a master that cannot be reached is listed instead of failing the call. */
export async function consumerGroupsReport(
  ctx: AdminContext,
  includeSystem = false,
): Promise<ConsumerGroupsReport> {
  const out = new Map<string, ConsumerGroupSummary>();
  const unreachable: UnreachableBroker[] = [];
  for (const [brokerName, address] of await ctx.masters()) {
    let response;
    try {
      response = await ctx.call(address, GetAllSubscriptionGroupConfig, undefined);
    } catch (err) {
      if (!(err instanceof BrokerUnavailableError)) throw err;
      unreachable.push({ brokerName, address, error: err });
      continue;
    }
    const w = parseSubscriptionGroupWrapper(response.body ?? '{}');
    for (const [name, config] of Object.entries(w.subscriptionGroupTable)) {
      if (!includeSystem && SYSTEM_GROUPS.has(name)) continue;
      const entry = out.get(name) ?? { group: name, brokers: [], config };
      entry.brokers.push(brokerName);
      out.set(name, entry);
    }
  }
  const groups = [...out.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  return { groups, unreachable };
}

/** Fields of a subscription group a caller may set; the rest keep Java's defaults. */
export type SubscriptionGroupSettings = Partial<Omit<SubscriptionGroupConfig, 'groupName'>> & {
  groupName: string;
};

/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP on every target master; returns the addresses written to. */
export async function createOrUpdateSubscriptionGroup(
  ctx: AdminContext,
  settings: SubscriptionGroupSettings,
  target: AdminTarget,
): Promise<string[]> {
  const group = checkGroupName(settings.groupName, 'groupName');
  const config = subscriptionGroupConfig(group, settings);
  for (const k of ['retryQueueNums', 'retryMaxTimes', 'brokerId', 'whichBrokerWhenConsumeSlowly'] as const)
    if (!Number.isInteger(config[k]) || config[k] < 0)
      throw new InvalidArgumentError(k, `must be an integer >= 0, got ${String(config[k])}`);
  const written: string[] = [];
  for (const address of (await ctx.targets(target)).values()) {
    await ctx.call(
      address,
      UpdateAndCreateSubscriptionGroup,
      undefined,
      encodeSubscriptionGroupConfig(config),
    );
    written.push(address);
  }
  return written;
}

/** DELETE_SUBSCRIPTIONGROUP on every target master (`removeOffset` also drops its offsets). */
export async function deleteSubscriptionGroup(
  ctx: AdminContext,
  group: string,
  target: AdminTarget,
  removeOffset = false,
): Promise<string[]> {
  checkGroupName(group);
  const written: string[] = [];
  for (const address of (await ctx.targets(target)).values()) {
    await ctx.call(address, DeleteSubscriptionGroup, {
      groupName: group,
      removeOffset,
      cleanOffset: removeOffset,
    });
    written.push(address);
  }
  return written;
}
