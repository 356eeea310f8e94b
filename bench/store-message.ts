/** The message the store benchmarks put: fixed loopback hosts, their own topic, queue, body and properties. */
import type { MessageToStore } from '../src/server/store/types.js';

export function benchStoreMessage(
  topic: string,
  queueId: number,
  body: Buffer,
  properties: string,
): MessageToStore {
  return {
    topic,
    queueId,
    flag: 0,
    sysFlag: 0,
    bornTimestamp: Date.now(),
    bornHost: { address: '127.0.0.1', port: 50000 },
    storeHost: { address: '127.0.0.1', port: 10911 },
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    body,
    properties,
  };
}
