/** Java `AllocateMessageQueueAveragelyByCircle` (`AVG_BY_CIRCLE`): deal the queues out like cards. */
import type { MessageQueue } from '../../client/route.js';
import type { AllocateContext } from './types.js';

export function allocateAveragelyByCircle({ currentCID, mqAll, cidAll }: AllocateContext): MessageQueue[] {
  const index = cidAll.indexOf(currentCID);
  const out: MessageQueue[] = [];
  for (let i = index; i < mqAll.length; i += cidAll.length) out.push(mqAll[i]!);
  return out;
}
