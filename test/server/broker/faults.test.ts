import * as assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields } from '../../../src/server/broker/faults.js';
import { Rpc, sendV2Header, sleep, uniqueName } from './rpc-helpers.js';

describe('fault injection', () => {
  let cluster: EmbeddedCluster;
  let topic: string;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 2, faultInjection: true });
    topic = uniqueName('FaultTopic');
    await cluster.createTopic(topic, 1);
  });
  after(async () => {
    await cluster.stop();
  });

  const send = (rpc: Rpc, body = 'x', timeoutMs = 3000): ReturnType<Rpc['request']> =>
    rpc.request(RequestCode.SEND_MESSAGE_V2, sendV2Header({ topic, body }), Buffer.from(body), timeoutMs);

  it('a broker with added latency answers late but correctly', async () => {
    const b = cluster.broker('broker-a');
    b.faults.set({ latencyMs: [150, 200] });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const started = Date.now();
      assert.equal((await send(rpc)).code, ResponseCode.SUCCESS);
      assert.ok(Date.now() - started >= 140);
      const hb = Date.now();
      await rpc.request(RequestCode.GET_MAX_OFFSET, { topic, queueId: 0 });
      assert.ok(Date.now() - hb < 140, 'non-send codes are not delayed by default');
    } finally {
      b.faults.clear();
      rpc.close();
    }
  });

  it('a broker answering SYSTEM_BUSY does not store; FLUSH_DISK_TIMEOUT stores and answers 10 with the send fields', async () => {
    const b = cluster.broker('broker-a');
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const before = b.store.getMaxOffset(topic, 0);
      b.faults.set({ errorCode: ResponseCode.SYSTEM_BUSY });
      const busy = await send(rpc);
      assert.equal(busy.code, ResponseCode.SYSTEM_BUSY);
      assert.equal(b.store.getMaxOffset(topic, 0), before);
      b.faults.set({ errorCode: ResponseCode.FLUSH_DISK_TIMEOUT, errorRate: 1 });
      const flush = await send(rpc, 'stored-anyway');
      assert.equal(flush.code, ResponseCode.FLUSH_DISK_TIMEOUT);
      assert.ok(flush.extFields?.msgId && flush.extFields.queueOffset === String(before));
      assert.equal(b.store.getMaxOffset(topic, 0), before + 1);
      b.faults.set({ errorCode: ResponseCode.SYSTEM_BUSY, errorRate: 0 });
      assert.equal((await send(rpc)).code, ResponseCode.SUCCESS, 'errorRate 0 never fails');
    } finally {
      b.faults.clear();
      rpc.close();
    }
  });

  it('a broker that hangs never answers sends, and answers again once cleared', async () => {
    const b = cluster.broker('broker-a');
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      b.faults.set({ hang: true });
      await assert.rejects(send(rpc, 'x', 300), (err: Error) => err.name === 'TimeoutError');
      b.faults.clear();
      assert.equal((await send(rpc)).code, ResponseCode.SUCCESS);
    } finally {
      b.faults.clear();
      rpc.close();
    }
  });

  it('a broker that drops connections closes the socket of each send', async () => {
    const b = cluster.broker('broker-a');
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      b.faults.set({ dropConnections: true });
      await assert.rejects(send(rpc), (err: Error) => err.name === 'ConnectionClosedError');
    } finally {
      b.faults.clear();
      rpc.close();
    }
  });

  it('a broker that refuses connections closes new sockets at once, and recovers after durationMs', async () => {
    const b = cluster.broker('broker-b');
    b.faults.set({ refuseConnections: true, durationMs: 400 });
    const addr = cluster.brokers[1]!.addr;
    const [host, port] = addr.split(':');
    const closedFast = await new Promise<boolean>((resolve) => {
      const s = connect(Number(port), host);
      const t = setTimeout(() => {
        s.destroy();
        resolve(false);
      }, 1000);
      s.on('close', () => {
        clearTimeout(t);
        resolve(true);
      });
      s.on('error', () => undefined);
    });
    assert.ok(closedFast, 'the socket was closed by the broker');
    await sleep(500);
    const rpc = await Rpc.connect(addr);
    try {
      assert.equal((await send(rpc)).code, ResponseCode.SUCCESS);
    } finally {
      rpc.close();
    }
  });

  it('remote control with request code 9901 sets and clears faults; a broker without faultInjection answers code 3', async () => {
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const set = await rpc.request(
        FAULT_INJECTION_REQUEST_CODE,
        faultSpecToExtFields({ errorCode: 2, errorRate: 1, requestCodes: [RequestCode.SEND_MESSAGE_V2] }),
      );
      assert.equal(set.code, ResponseCode.SUCCESS);
      assert.deepEqual(JSON.parse(Buffer.from(set.body ?? []).toString()), {
        errorCode: 2,
        errorRate: 1,
        requestCodes: [310],
      });
      assert.equal((await send(rpc)).code, ResponseCode.SYSTEM_BUSY);
      const cleared = await rpc.request(FAULT_INJECTION_REQUEST_CODE, { clear: 'true' });
      assert.equal(cleared.code, ResponseCode.SUCCESS);
      assert.equal((await send(rpc)).code, ResponseCode.SUCCESS);
      const bad = await rpc.request(FAULT_INJECTION_REQUEST_CODE, { errorRate: 'lots' });
      assert.equal(bad.code, ResponseCode.SYSTEM_ERROR);
    } finally {
      rpc.close();
    }
    const plain = await EmbeddedCluster.start({ brokers: 1 });
    const rpc2 = await Rpc.connect(plain.brokers[0]!.addr);
    try {
      assert.equal(
        (await rpc2.request(FAULT_INJECTION_REQUEST_CODE, { hang: 'true' })).code,
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      );
      assert.throws(() => plain.broker('broker-a').faults);
    } finally {
      rpc2.close();
      await plain.stop();
    }
  });
});
