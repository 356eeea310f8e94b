/**
 * Queue allocation for CLUSTERING consumers (docs/consumers.md §1.2): the Java client's strategies,
 * their input check and their input order, so TypeScript and Java consumers can share a group.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import type { Logger } from '../../observability/logger.js';
import { silentLogger } from '../../observability/logger.js';
import { allocateAveragely } from './averagely.js';
import { allocateAveragelyByCircle } from './averagely-by-circle.js';
import { configStrategy } from './config.js';
import { DEFAULT_VIRTUAL_NODE_COUNT, consistentHashStrategy } from './consistent-hash.js';
import { machineRoomNearbyStrategy, machineRoomStrategy, type MachineRoomResolver } from './machine-room.js';
import { compareCodeUnits, compareMessageQueue } from './order.js';
import type { AllocateContext, AllocateStrategy, AllocateStrategyName } from './types.js';

export type { AllocateContext, AllocateStrategy, AllocateStrategyName } from './types.js';
export type { MachineRoomResolver } from './machine-room.js';
export { allocateAveragely } from './averagely.js';
export { allocateAveragelyByCircle } from './averagely-by-circle.js';
export { configStrategy } from './config.js';
export {
  DEFAULT_VIRTUAL_NODE_COUNT,
  consistentHashStrategy,
  md5Hash32,
  messageQueueToString,
} from './consistent-hash.js';
export { machineRoomNearbyStrategy, machineRoomStrategy } from './machine-room.js';
export { compareCodeUnits, compareMessageQueue } from './order.js';

export const ALLOCATE_STRATEGY_NAMES: readonly AllocateStrategyName[] = Object.freeze([
  'AVG',
  'AVG_BY_CIRCLE',
  'CONSISTENT_HASH',
  'CONFIG',
  'MACHINE_ROOM',
]);

/** Settings some strategies need; each is accepted only with the strategy that reads it. */
export interface AllocateStrategyOptions {
  /** `CONFIG` (required): the queues this consumer takes (Java `setMessageQueueList`). */
  messageQueues?: readonly MessageQueue[];
  /** `MACHINE_ROOM` (required): the rooms whose brokers (`room@name`) this group consumes. */
  consumeridcs?: readonly string[];
  /** `CONSISTENT_HASH`: virtual nodes per consumer. @default 10 */
  virtualNodeCount?: number;
  /**
   * Any strategy: wrap it in Java's `AllocateMachineRoomNearby`, so a room's queues stay with
   * that room's consumers while it has any. @default undefined (no wrapping)
   */
  machineRoomResolver?: MachineRoomResolver;
}

const OPTION_OWNERS: Readonly<Record<keyof AllocateStrategyOptions, AllocateStrategyName | 'any'>> =
  Object.freeze({
    messageQueues: 'CONFIG',
    consumeridcs: 'MACHINE_ROOM',
    virtualNodeCount: 'CONSISTENT_HASH',
    machineRoomResolver: 'any',
  });

function checkQueues(value: unknown): readonly MessageQueue[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError('messageQueues', 'must be an array of queues');
  for (const mq of value as unknown[]) {
    const q = mq as Partial<MessageQueue> | null;
    if (
      typeof q !== 'object' ||
      q === null ||
      typeof q.topic !== 'string' ||
      typeof q.brokerName !== 'string' ||
      !Number.isInteger(q.queueId)
    ) {
      throw new InvalidArgumentError(
        'messageQueues',
        `not a {topic, brokerName, queueId}: ${JSON.stringify(mq)}`,
      );
    }
  }
  return value as readonly MessageQueue[];
}

function checkIdcs(value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || v === '')) {
    throw new InvalidArgumentError('consumeridcs', 'must be a non-empty array of room names');
  }
  return value as readonly string[];
}

function checkResolver(value: unknown): MachineRoomResolver {
  const r = value as Partial<MachineRoomResolver> | null;
  if (
    typeof r !== 'object' ||
    r === null ||
    typeof r.brokerDeployIn !== 'function' ||
    typeof r.consumerDeployIn !== 'function'
  ) {
    throw new InvalidArgumentError(
      'machineRoomResolver',
      'must have brokerDeployIn(mq) and consumerDeployIn(clientId)',
    );
  }
  return r as MachineRoomResolver;
}

/**
 * The strategy for a name (or a user function), validated: unknown option keys, options meant
 * for another strategy and a missing required option throw `InvalidArgumentError`.
 */
export function resolveAllocateStrategy(
  spec: AllocateStrategyName | AllocateStrategy,
  options: AllocateStrategyOptions = {},
): AllocateStrategy {
  if (typeof spec !== 'function' && !ALLOCATE_STRATEGY_NAMES.includes(spec)) {
    throw new InvalidArgumentError(
      'allocateMessageQueueStrategy',
      `must be a function or one of ${ALLOCATE_STRATEGY_NAMES.join(', ')}, got ${String(spec)}`,
    );
  }
  const name = typeof spec === 'function' ? 'a function' : spec;
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    const owner = OPTION_OWNERS[key as keyof AllocateStrategyOptions] as
      AllocateStrategyName | 'any' | undefined;
    if (owner === undefined) throw new InvalidArgumentError(key, 'unknown allocate strategy option');
    if (owner !== 'any' && owner !== spec) {
      throw new InvalidArgumentError(key, `only applies to the ${owner} strategy, not ${name}`);
    }
  }
  let strategy: AllocateStrategy;
  switch (spec) {
    case 'AVG':
      strategy = allocateAveragely;
      break;
    case 'AVG_BY_CIRCLE':
      strategy = allocateAveragelyByCircle;
      break;
    case 'CONSISTENT_HASH': {
      const n = options.virtualNodeCount ?? DEFAULT_VIRTUAL_NODE_COUNT;
      if (!Number.isInteger(n) || n < 0) {
        throw new InvalidArgumentError('virtualNodeCount', `must be an integer >= 0, got ${String(n)}`);
      }
      strategy = consistentHashStrategy(n);
      break;
    }
    case 'CONFIG':
      if (options.messageQueues === undefined) {
        throw new InvalidArgumentError(
          'messageQueues',
          'the CONFIG strategy needs the list of queues to take',
        );
      }
      strategy = configStrategy(checkQueues(options.messageQueues));
      break;
    case 'MACHINE_ROOM':
      if (options.consumeridcs === undefined) {
        throw new InvalidArgumentError(
          'consumeridcs',
          'the MACHINE_ROOM strategy needs the rooms to consume',
        );
      }
      strategy = machineRoomStrategy(checkIdcs(options.consumeridcs));
      break;
    default:
      strategy = spec;
  }
  return options.machineRoomResolver === undefined
    ? strategy
    : machineRoomNearbyStrategy(strategy, checkResolver(options.machineRoomResolver));
}

/**
 * Runs a strategy as `RebalanceImpl#rebalanceByTopic` does: sorts copies of `mqAll` (Java
 * `MessageQueue#compareTo`) and `cidAll` (`Collections.sort`, UTF-16 code units), then applies
 * `AbstractAllocateMessageQueueStrategy#check`:
 * - an empty `currentCID`, `mqAll` or `cidAll` throws `InvalidArgumentError` (Java throws
 *   IllegalArgumentException and the rebalance of that topic is skipped, keeping the queues held
 *   so far; the caller should do the same rather than treat it as "no queues");
 * - a `currentCID` missing from `cidAll` logs a warning and returns `[]` (the broker does not
 *   know this consumer yet; it is listed after its next heartbeat).
 */
export function allocate(
  strategy: AllocateStrategy,
  ctx: AllocateContext,
  logger: Logger = silentLogger,
): MessageQueue[] {
  if (!ctx.currentCID) throw new InvalidArgumentError('currentCID', 'is empty');
  if (ctx.mqAll.length === 0) throw new InvalidArgumentError('mqAll', 'is empty');
  if (ctx.cidAll.length === 0) throw new InvalidArgumentError('cidAll', 'is empty');
  if (!ctx.cidAll.includes(ctx.currentCID)) {
    logger.warn("[BUG] consumer id not in the group's consumer list; allocating nothing", {
      consumerGroup: ctx.consumerGroup,
      currentCID: ctx.currentCID,
      cidAll: ctx.cidAll,
    });
    return [];
  }
  const mqAll = [...ctx.mqAll].sort(compareMessageQueue);
  const cidAll = [...ctx.cidAll].sort(compareCodeUnits);
  return strategy({ consumerGroup: ctx.consumerGroup, currentCID: ctx.currentCID, mqAll, cidAll });
}
