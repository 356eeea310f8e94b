/**
 * SET_MESSAGE_REQUEST_MODE (401) on every target master (mqadmin `setConsumeMode`): whether a
 * group consumes a topic by PULL or POP, for its `clientRebalance: false` consumers
 * (docs/consumers.md §1.12). Without a target it goes to the masters serving the topic.
 */
import { InvalidArgumentError } from '../errors.js';
import {
  encodeSetMessageRequestModeBody,
  MESSAGE_REQUEST_MODES,
  type MessageRequestMode,
} from '../protocol/body/assignment.js';
import { SetMessageRequestMode } from '../protocol/headers/consumer.js';
import type { AdminContext } from './admin-context.js';
import { checkGroupName } from './consumers.js';
import { checkTopicName } from './topics.js';
import type { AdminTarget } from './types.js';

export type { MessageRequestMode } from '../protocol/body/assignment.js';

/** Returns the addresses written to. */
export async function setMessageRequestMode(
  ctx: AdminContext,
  topic: string,
  group: string,
  mode: MessageRequestMode,
  popShareQueueNum: number,
  target: AdminTarget,
): Promise<string[]> {
  checkTopicName(topic);
  checkGroupName(group);
  if (!MESSAGE_REQUEST_MODES.includes(mode))
    throw new InvalidArgumentError('mode', `must be PULL or POP, got ${String(mode)}`);
  if (!Number.isInteger(popShareQueueNum))
    throw new InvalidArgumentError('popShareQueueNum', `must be an integer, got ${String(popShareQueueNum)}`);
  const masters =
    target.cluster !== undefined || (target.brokers?.length ?? 0) > 0
      ? await ctx.targets(target)
      : ctx.routeMasters(await ctx.route(topic));
  const body = encodeSetMessageRequestModeBody({ topic, consumerGroup: group, mode, popShareQueueNum });
  const written: string[] = [];
  for (const address of masters.values()) {
    await ctx.call(address, SetMessageRequestMode, undefined, body);
    written.push(address);
  }
  return written;
}
