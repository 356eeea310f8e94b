import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Producer } from '../../../src/producer/producer.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { encodeBatch } from '../../../src/protocol/message/batch.js';
import { ZLIB_COMPRESSED_SYSFLAG } from '../../../src/protocol/message/compression.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header, uniqueName } from './rpc-helpers.js';

const MAX = 64 * 1024;

describe('the broker size rule: stored body against maxMessageSize, properties up to 32767 bytes', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  let topic: string;
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { maxMessageSize: MAX } });
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    topic = uniqueName('SizeRule');
    await cluster.createTopic(topic, 1);
  });
  after(async () => {
    rpc.close();
    await cluster.stop();
  });

  const send = (body: Uint8Array, props: Record<string, string> = {}, sysFlag = 0) =>
    rpc.request(RequestCode.SEND_MESSAGE_V2, sendV2Header({ topic, body, props, sysFlag }), body);

  it('accepts a body of exactly maxMessageSize and refuses one byte more', async () => {
    assert.equal((await send(randomBytes(MAX))).code, ResponseCode.SUCCESS);
    assert.equal((await send(randomBytes(MAX + 1))).code, ResponseCode.MESSAGE_ILLEGAL);
  });

  it('checks the compressed body as stored, not its uncompressed size', async () => {
    const compressed = deflateSync(Buffer.alloc(4 * MAX, 'a'));
    assert.ok(compressed.byteLength < MAX);
    assert.equal((await send(compressed, {}, ZLIB_COMPRESSED_SYSFLAG)).code, ResponseCode.SUCCESS);
  });

  it('refuses properties over 32767 bytes and accepts them just under', async () => {
    const big = await send(Buffer.from('x'), { P: 'v'.repeat(32767) });
    assert.equal(big.code, ResponseCode.MESSAGE_ILLEGAL);
    const fits = await send(Buffer.from('x'), { P: 'v'.repeat(32000) });
    assert.equal(fits.code, ResponseCode.SUCCESS);
  });

  it('checks a batch as a whole against maxMessageSize', async () => {
    const entry = { body: randomBytes(MAX / 2), flag: 0, properties: 'WAIT\u0001true' };
    const body = encodeBatch([entry, entry]);
    assert.ok(body.byteLength > MAX);
    const r = await rpc.request(RequestCode.SEND_BATCH_MESSAGE, sendV2Header({ topic, body }), body);
    assert.equal(r.code, ResponseCode.MESSAGE_ILLEGAL);
  });

  it('a producer with the same maxMessageSize gets an incompressible body of that size stored', async () => {
    const producer = new Producer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_size_rule',
      maxMessageSize: MAX,
      compressMsgBodyOverHowmuch: 1024,
    });
    await producer.start();
    try {
      const result = await producer.send({ topic, body: randomBytes(MAX) });
      assert.equal(result.status, 'SEND_OK');
    } finally {
      await producer.shutdown();
    }
  });
});
