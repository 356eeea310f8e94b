/**
 * The two machine-room strategies of the Java client:
 * - `AllocateMessageQueueByMachineRoom` (`MACHINE_ROOM`): only queues of brokers named
 *   `idc@name` with `idc` in `consumeridcs`, split in contiguous blocks; the remainder goes one
 *   each to the first consumers, taken from the end of the list.
 * - `AllocateMachineRoomNearby` (`MACHINE_ROOM_NEARBY-<inner>`): a wrapper; the queues of a room
 *   that has consumers go (by the inner strategy) only to that room's consumers, and the queues
 *   of a room without consumers are shared by all of them.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { MessageQueue } from '../../client/route.js';
import { compareCodeUnits } from './order.js';
import type { AllocateContext, AllocateStrategy } from './types.js';

export function machineRoomStrategy(consumeridcs: Iterable<string>): AllocateStrategy {
  const idcs = new Set(consumeridcs);
  return ({ currentCID, mqAll, cidAll }: AllocateContext): MessageQueue[] => {
    const index = cidAll.indexOf(currentCID);
    if (index < 0) return [];
    const premqAll = mqAll.filter((mq) => {
      const parts = mq.brokerName.split('@');
      return parts.length === 2 && idcs.has(parts[0]!);
    });
    const mod = Math.floor(premqAll.length / cidAll.length);
    const rem = premqAll.length % cidAll.length;
    const out = premqAll.slice(mod * index, mod * index + mod);
    if (rem > index) out.push(premqAll[index + mod * cidAll.length]!);
    return out;
  };
}

/** Java `AllocateMachineRoomNearby.MachineRoomResolver`; both must return a non-empty room. */
export interface MachineRoomResolver {
  brokerDeployIn(mq: MessageQueue): string;
  consumerDeployIn(clientId: string): string;
}

function groupBy<T>(items: readonly T[], roomOf: (item: T) => string, what: (item: T) => string) {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const room = roomOf(item);
    if (typeof room !== 'string' || room.length === 0) {
      throw new InvalidArgumentError('machineRoomResolver', `machine room is empty for ${what(item)}`);
    }
    let list = out.get(room);
    if (list === undefined) out.set(room, (list = []));
    list.push(item);
  }
  return out;
}

export function machineRoomNearbyStrategy(
  inner: AllocateStrategy,
  resolver: MachineRoomResolver,
): AllocateStrategy {
  return (ctx: AllocateContext): MessageQueue[] => {
    const mqByRoom = groupBy(
      ctx.mqAll,
      (mq) => resolver.brokerDeployIn(mq),
      (mq) => `queue ${mq.brokerName}/${mq.queueId}`,
    );
    const cidByRoom = groupBy(
      ctx.cidAll,
      (cid) => resolver.consumerDeployIn(cid),
      (cid) => `consumer ${cid}`,
    );
    const out: MessageQueue[] = [];
    const myRoom = resolver.consumerDeployIn(ctx.currentCID);
    const mine = mqByRoom.get(myRoom);
    mqByRoom.delete(myRoom);
    if (mine !== undefined && mine.length > 0) {
      out.push(...inner({ ...ctx, mqAll: mine, cidAll: cidByRoom.get(myRoom) ?? [] }));
    }
    // Java walks the remaining rooms in TreeMap order; the order only affects the result order.
    for (const room of [...mqByRoom.keys()].sort(compareCodeUnits)) {
      if (!cidByRoom.has(room)) out.push(...inner({ ...ctx, mqAll: mqByRoom.get(room)! }));
    }
    return out;
  };
}
