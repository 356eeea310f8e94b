import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import {
  BLANK_MAGIC_CODE,
  MESSAGE_MAGIC_CODE,
  MESSAGE_MAGIC_CODE_V2,
  decodeStoredMessage,
  decodeStoredMessages,
  encodeStoredMessage,
  storedMessageOffsetMsgId,
  storedMessageSize,
  type StoredMessage,
} from '../../src/protocol/message/stored-message.js';
import { MessageSysFlag } from '../../src/protocol/message/sysflag.js';

// §14.5: 103 bytes.
const V14_5 =
  '00000067 daa320a7 3610a686 00000001 00000000 0000000000000005 00000000000004d2 00000000 0000018bcfe56800 7f000001 0000c350 0000018bcfe56801 7f000001 00002a9f 00000000 0000000000000000 00000005 68656c6c6f 01 54 0006 544147530141';
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

const base: StoredMessage = {
  queueId: 1,
  flag: 0,
  queueOffset: 5,
  physicalOffset: 1234,
  sysFlag: 0,
  bornTimestamp: 1700000000000,
  bornHost: { address: '127.0.0.1', port: 50000 },
  storeTimestamp: 1700000000001,
  storeHost: { address: '127.0.0.1', port: 10911 },
  reconsumeTimes: 0,
  preparedTransactionOffset: 0,
  body: Buffer.from('hello'),
  topic: 'T',
  properties: 'TAGS\u0001A',
};

describe('stored message (§6.2)', () => {
  it('encodes §14.5 byte for byte, computing BODYCRC', () => {
    assert.equal(storedMessageSize(base), 103);
    assert.equal(encodeStoredMessage(base).toString('hex'), hex(V14_5).toString('hex'));
  });

  it('decodes §14.5', () => {
    const { message, size } = decodeStoredMessage(hex(V14_5));
    assert.equal(size, 103);
    assert.equal(message.totalSize, 103);
    assert.equal(message.magicCode, MESSAGE_MAGIC_CODE);
    assert.equal(message.bodyCRC, 907060870);
    const { totalSize: _t, magicCode: _m, bodyCRC: _c, ...rest } = message;
    assert.deepEqual({ ...rest, body: Buffer.from(rest.body) }, base);
    assert.equal(storedMessageOffsetMsgId(message), '7F00000100002A9F00000000000004D2');
  });

  it('decodes a record in the middle of a buffer and a sequence of records', () => {
    const one = hex(V14_5);
    const two = encodeStoredMessage({
      ...base,
      queueOffset: 6,
      physicalOffset: 1337,
      body: Buffer.from('x'),
    });
    const buf = Buffer.concat([one, two]);
    const second = decodeStoredMessage(buf, one.length).message;
    assert.equal(second.queueOffset, 6);
    assert.deepEqual(
      decodeStoredMessages(buf).map((m) => m.physicalOffset),
      [1234, 1337],
    );
  });

  it('round trips IPv6 hosts, setting the V6 sysFlag bits from the addresses', () => {
    const msg: StoredMessage = {
      ...base,
      sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
      bornHost: { address: '2001:db8::7', port: 1 },
      storeHost: { address: '::1', port: 10911 },
    };
    const buf = encodeStoredMessage(msg);
    assert.equal(buf.length, 103 + 12 + 12);
    const decoded = decodeStoredMessage(buf).message;
    assert.equal(
      decoded.sysFlag,
      MessageSysFlag.TRANSACTION_PREPARED_TYPE |
        MessageSysFlag.BORNHOST_V6_FLAG |
        MessageSysFlag.STOREHOSTADDRESS_V6_FLAG,
    );
    assert.deepEqual(decoded.bornHost, msg.bornHost);
    assert.deepEqual(decoded.storeHost, msg.storeHost);
    assert.equal(storedMessageOffsetMsgId(decoded).length, 56);
  });

  it('uses MAGIC V2 with an int16 topic length for topics over 127 bytes', () => {
    const topic = 'T'.repeat(200);
    const buf = encodeStoredMessage({ ...base, topic });
    assert.equal(buf.readInt32BE(4), MESSAGE_MAGIC_CODE_V2);
    assert.equal(buf.length, 103 - 1 + 200 + 1);
    const decoded = decodeStoredMessage(buf).message;
    assert.equal(decoded.topic, topic);
    assert.equal(decoded.magicCode, MESSAGE_MAGIC_CODE_V2);
    // V2 may also be requested for short topics.
    const short = decodeStoredMessage(
      encodeStoredMessage({ ...base, magicCode: MESSAGE_MAGIC_CODE_V2 }),
    ).message;
    assert.equal(short.topic, 'T');
    assert.throws(
      () => encodeStoredMessage({ ...base, topic, magicCode: MESSAGE_MAGIC_CODE }),
      ProtocolError,
    );
  });

  it('round trips large offsets, negative flags, empty body and properties, given BODYCRC', () => {
    const msg: StoredMessage = {
      ...base,
      flag: -1,
      queueOffset: 2 ** 40,
      physicalOffset: Number.MAX_SAFE_INTEGER,
      preparedTransactionOffset: 77,
      reconsumeTimes: 16,
      body: Buffer.alloc(0),
      properties: '',
      topic: '%RETRY%group',
      bodyCRC: 12345,
    };
    const decoded = decodeStoredMessage(encodeStoredMessage(msg)).message;
    const { totalSize: _t, magicCode: _m, ...rest } = decoded;
    assert.deepEqual({ ...rest, body: Buffer.from(rest.body) }, { ...msg, body: Buffer.alloc(0) });
  });

  it('refuses properties over 32767 bytes', () => {
    assert.throws(
      () => encodeStoredMessage({ ...base, properties: 'K\u0001' + 'v'.repeat(32766) }),
      ProtocolError,
    );
  });

  describe('malformed input is a ProtocolError, never a RangeError', () => {
    const good = hex(V14_5);
    it('every truncation of a record', () => {
      for (let cut = 0; cut < good.length; cut++) {
        assert.throws(() => decodeStoredMessage(good.subarray(0, cut)), ProtocolError, `cut ${cut}`);
      }
    });
    it('TOTALSIZE shorter than the fields (each possible value)', () => {
      for (let size = -1; size < good.length; size++) {
        const b = Buffer.from(good);
        b.writeInt32BE(size, 0);
        assert.throws(() => decodeStoredMessage(b), ProtocolError, `size ${size}`);
      }
    });
    it('TOTALSIZE longer than the fields', () => {
      const b = Buffer.concat([good, Buffer.alloc(4)]);
      b.writeInt32BE(107, 0);
      assert.throws(() => decodeStoredMessage(b), ProtocolError);
    });
    it('bad magic and the BLANK end-of-file magic', () => {
      for (const magic of [0, BLANK_MAGIC_CODE, 0x12345678]) {
        const b = Buffer.from(good);
        b.writeInt32BE(magic, 4);
        assert.throws(() => decodeStoredMessage(b), ProtocolError);
      }
    });
    const mutations: Array<[string, number, number, 1 | 2 | 4]> = [
      // Offsets in the §14.5 record: body length at 84, topic length at 93, properties length at 95.
      ['negative body length', 84, -1, 4],
      ['body length past the record', 84, 1000, 4],
      ['huge body length', 84, 0x7fffffff, 4],
      ['negative topic length', 93, -1, 1],
      ['topic length past the record', 93, 100, 1],
      ['negative properties length', 95, -1, 2],
      ['properties length past the record', 95, 7, 2],
      ['properties shorter than the record', 95, 5, 2],
    ];
    for (const [name, at, value, size] of mutations) {
      it(name, () => {
        const b = Buffer.from(good);
        if (size === 4) b.writeInt32BE(value, at);
        else if (size === 2) b.writeInt16BE(value, at);
        else b.writeInt8(value, at);
        assert.throws(() => decodeStoredMessage(b), ProtocolError);
      });
    }
    it('IPv6 flag set on an IPv4 record overruns', () => {
      const b = Buffer.from(good);
      b.writeInt32BE(MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG, 36);
      assert.throws(() => decodeStoredMessage(b), ProtocolError);
    });
    it('an offset outside the buffer', () => {
      assert.throws(() => decodeStoredMessage(good, good.length), ProtocolError);
      assert.throws(() => decodeStoredMessage(good, -1), ProtocolError);
      assert.throws(() => decodeStoredMessages(Buffer.concat([good, good.subarray(0, 10)])), ProtocolError);
    });
  });
});
