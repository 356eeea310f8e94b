/**
 * Scenario: a broker's disk fills up (the `diskFull` fault: commit-log appends write part of a
 * record, then fail with ENOSPC). Each send is answered SERVICE_NOT_AVAILABLE, no partial record
 * stays in the log (on disk or after a crash and recovery), a producer fails over to the other
 * broker, and once space is back the broker stores again from where it was.
 */
import * as assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Producer } from '../../../src/producer/producer.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { decodeStoredMessage } from '../../../src/protocol/message/stored-message.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields } from '../../../src/server/broker/faults.js';
import { isDiskFull } from '../../../src/server/store/fault-injection.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

async function commitLogBytes(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'commitlog');
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).size;
  return total;
}

describe('disk full on a broker', () => {
  let cluster: EmbeddedCluster;
  let topic: string;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
    topic = uniqueName('DiskFull');
    await cluster.createTopic(topic, 1);
  });
  after(async () => {
    await cluster.stop();
  });

  it('sends fail with SERVICE_NOT_AVAILABLE, nothing partial is stored, and storing resumes once cleared', async () => {
    const broker = cluster.broker('broker-a');
    const dataDir = broker.options.storePathRootDir;
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    const send = (body: string): ReturnType<Rpc['request']> =>
      rpc.request(RequestCode.SEND_MESSAGE_V2, sendV2Header({ topic, body }), Buffer.from(body));
    try {
      assert.equal((await send('before')).code, ResponseCode.SUCCESS);
      const bytes = await commitLogBytes(dataDir);
      // set over the wire, as the chaos run does
      const set = await rpc.request(FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields({ diskFull: true }));
      assert.equal(set.code, ResponseCode.SUCCESS);
      assert.ok(isDiskFull(dataDir));
      for (const body of ['full-1', 'full-2']) {
        const r = await send(body);
        assert.equal(r.code, ResponseCode.SERVICE_NOT_AVAILABLE);
        assert.match(r.remark ?? '', /ENOSPC/);
      }
      assert.equal(await commitLogBytes(dataDir), bytes, 'the torn half-record was cut off');
      assert.equal(broker.store.getMaxOffset(topic, 0), 1);

      await rpc.request(FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields(undefined));
      assert.ok(!isDiskFull(dataDir));
      assert.equal((await send('after')).code, ResponseCode.SUCCESS);
      assert.equal(broker.store.getMaxOffset(topic, 0), 2);
    } finally {
      rpc.close();
    }
    // crash and recover: exactly the two stored messages, no trace of the failed ones
    await cluster.stopBroker('broker-a', { graceful: false });
    await cluster.startBroker('broker-a');
    const got = await cluster.broker('broker-a').store.getMessages(topic, 0, 0, 10);
    assert.deepEqual(
      got.messages.map((b) => decodeStoredMessage(b).message.body.toString()),
      ['before', 'after'],
    );
  });

  it('a producer fails over to the broker whose disk is not full; the fault ends with the broker run', async () => {
    const broker = cluster.broker('broker-b');
    broker.faults.set({ diskFull: true });
    const producer = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: uniqueName('DiskFullPG'),
    });
    await producer.start();
    try {
      for (let i = 0; i < 10; i++) {
        const r = await producer.send({ topic, body: `m${i}` });
        assert.equal(r.messageQueue.brokerName, 'broker-a');
      }
    } finally {
      await producer.shutdown();
    }
    await cluster.stopBroker('broker-b');
    assert.ok(!isDiskFull(broker.options.storePathRootDir), 'a stopped broker leaves no full disk behind');
    await cluster.startBroker('broker-b');
  });
});
