/**
 * Java `AllocateMessageQueueAveragely` (`AVG`, the default): consumer i takes one contiguous
 * block; the first `mqs % cids` consumers take one queue more.
 */
import type { MessageQueue } from '../../client/route.js';
import type { AllocateContext } from './types.js';

export function allocateAveragely({ currentCID, mqAll, cidAll }: AllocateContext): MessageQueue[] {
  const index = cidAll.indexOf(currentCID);
  const mqs = mqAll.length;
  const cids = cidAll.length;
  const mod = mqs % cids;
  const bigger = mod > 0 && index < mod;
  const averageSize = mqs <= cids ? 1 : bigger ? Math.floor(mqs / cids) + 1 : Math.floor(mqs / cids);
  const startIndex = bigger ? index * averageSize : index * averageSize + mod;
  // Negative when there are more consumers than queues: the surplus consumers get nothing.
  const range = Math.min(averageSize, mqs - startIndex);
  const out: MessageQueue[] = [];
  for (let i = 0; i < range; i++) out.push(mqAll[(startIndex + i) % mqs]!);
  return out;
}
