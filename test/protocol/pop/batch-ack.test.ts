/**
 * The BATCH_ACK_MESSAGE body against hand-built bytes: Java's `BitSet#toByteArray()` is
 * little-endian (bit 0 is the lowest bit of byte 0, bit 9 the second bit of byte 1), written as
 * standard padded base64 by `BitSetSerializerDeserializer`; field names are `BatchAck`'s @JSONField names.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  bitSetBytes,
  bitSetIndexes,
  decodeBatchAckBody,
  encodeBatchAckBody,
  type BatchAck,
} from '../../../src/protocol/pop/batch-ack.js';
import { ProtocolError } from '../../../src/errors.js';

const entry: BatchAck = {
  consumerGroup: 'G',
  topic: 'T',
  retry: '0',
  startOffset: 100,
  queueId: 3,
  reviveQueueId: 0,
  popTime: 1700000000000,
  invisibleTime: 60000,
  indexes: [0, 2, 9],
};

describe('BATCH_ACK body codec', () => {
  it('bits 0, 2 and 9 are the bytes 0x05 0x02 (BitSet.toByteArray), base64 "BQI="', () => {
    assert.deepEqual([...bitSetBytes([0, 2, 9])], [0x05, 0x02]);
    assert.equal(Buffer.from([0x05, 0x02]).toString('base64'), 'BQI=');
  });

  it('bit 7 is 0x80 in one byte; bit 8 alone is 00 01 (no trailing zero bytes, a leading one kept)', () => {
    assert.deepEqual([...bitSetBytes([7])], [0x80]);
    assert.deepEqual([...bitSetBytes([8])], [0x00, 0x01]);
    assert.deepEqual([...bitSetBytes([])], []);
  });

  it('BitSet.valueOf order: 0x05 0x02 are bits 0, 2, 9; 0xff is 0..7', () => {
    assert.deepEqual(bitSetIndexes(Uint8Array.from([0x05, 0x02])), [0, 2, 9]);
    assert.deepEqual(bitSetIndexes(Uint8Array.from([0xff])), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(bitSetIndexes(Uint8Array.from([0x00, 0x00, 0x10])), [20]);
  });

  // The expected text is what Java 5.5.0's `BatchAckMessageRequestBody#encode()` (fastjson2) printed
  // for the same BatchAck (bits 0, 2, 9 set), run once by hand against the interop classpath.
  it('encodes exactly the JSON fastjson2 writes for BatchAckMessageRequestBody', () => {
    const bytes = encodeBatchAckBody({ brokerName: 'broker-a', acks: [entry] });
    assert.equal(
      bytes.toString('utf8'),
      '{"acks":[{"b":"BQI=","c":"G","it":60000,"pt":1700000000000,"q":3,"r":"0","rq":0,"so":100,"t":"T"}],"brokerName":"broker-a"}',
    );
  });

  it('decodes a hand-written Java body, long alternate names included', () => {
    const text =
      '{"brokerName":"b","acks":[{"c":"G","t":"T","r":"1","so":7,"q":0,"rq":999,"pt":5,"it":30000,"b":"gAE="},' +
      '{"consumerGroup":"G2","topic":"T2","retry":"0","startOffset":"8","queueId":1,"reviveQueueId":0,"popTime":6,"invisibleTime":1,"bitSet":"AQ=="}]}';
    const body = decodeBatchAckBody(Buffer.from(text));
    assert.equal(body.brokerName, 'b');
    assert.deepEqual(body.acks[0], {
      consumerGroup: 'G',
      topic: 'T',
      retry: '1',
      startOffset: 7,
      queueId: 0,
      reviveQueueId: 999,
      popTime: 5,
      invisibleTime: 30000,
      indexes: [7, 8],
    });
    assert.equal(body.acks[1]?.consumerGroup, 'G2');
    assert.equal(body.acks[1]?.startOffset, 8);
    assert.deepEqual(body.acks[1]?.indexes, [0]);
  });

  it('round-trips', () => {
    const body = { brokerName: 'x', acks: [entry, { ...entry, retry: '1' as const, indexes: [31, 0, 64] }] };
    const back = decodeBatchAckBody(encodeBatchAckBody(body));
    assert.deepEqual(back.acks[0], entry);
    assert.deepEqual(back.acks[1]?.indexes, [0, 31, 64]);
  });

  it('rejects a body that is not JSON, a bad retry flag, a non-integer offset and non-base64 bits', () => {
    const bad = (t: string): void =>
      assert.throws(() => decodeBatchAckBody(Buffer.from(t)), ProtocolError, t);
    bad('{"acks":[');
    bad('[1]');
    bad('{"acks":{}}');
    bad('{"acks":[{"c":"G","t":"T","r":"3","so":1,"q":0,"rq":0,"pt":1,"it":1,"b":"AQ=="}]}');
    bad('{"acks":[{"c":"G","t":"T","r":"0","so":1.5,"q":0,"rq":0,"pt":1,"it":1,"b":"AQ=="}]}');
    bad('{"acks":[{"c":"G","t":"T","r":"0","so":1,"q":0,"rq":0,"pt":1,"it":1,"b":"%%"}]}');
    bad('{"acks":[{"t":"T","r":"0","so":1,"q":0,"rq":0,"pt":1,"it":1}]}');
  });

  it('refuses to encode a negative index', () => {
    assert.throws(() => encodeBatchAckBody({ acks: [{ ...entry, indexes: [-1] }] }), ProtocolError);
  });
});
