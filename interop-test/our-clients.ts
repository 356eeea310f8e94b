/** Our clients as the interop tests configure them: loopback name server, quick route refresh. */
import { Producer } from '../src/producer/producer.js';

/** A started Producer (group `interop_ts_pg_<run>`) that notices new routes within a second. */
export async function interopProducer(namesrvAddr: string, run: string): Promise<Producer> {
  const producer = new Producer({
    producerGroup: `interop_ts_pg_${run}`,
    namesrvAddr,
    instanceName: `interop_${run}`,
    pollNameServerInterval: 1000,
  });
  await producer.start();
  return producer;
}
