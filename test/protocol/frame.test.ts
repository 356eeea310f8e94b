import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError, ProtocolError } from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import {
  SerializeType,
  createRequest,
  createResponse,
  resolveCommandDefaults,
  type RemotingCommand,
} from '../../src/protocol/command.js';
import { decodeFrame, encodeFrame, encodeFrameToBuffer } from '../../src/protocol/frame.js';

// §14.1: GET_ROUTEINFO_BY_TOPIC(topic=TopicTest), JSON, opaque 1, no body.
const V14_1 =
  '00000087000000837b22636f6465223a3130352c226578744669656c6473223a7b22746f706963223a22546f70696354657374227d2c22666c6167223a302c226c616e6775616765223a224a415641222c226f7061717565223a312c2273657269616c697a655479706543757272656e74525043223a224a534f4e222c2276657273696f6e223a3430377d';
// §14.2: the same request, ROCKETMQ binary.
const V14_2 =
  '0000002d 01000029 0069 00 0197 00000001 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374';
// §14.3: ROCKETMQ binary response, SUCCESS, opaque 1, body `{}`.
const V14_3 = '0000001b 01000015 0000 00 0197 00000001 00000001 00000000 00000000 7b7d';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
/** What the transport hands decodeFrame: the frame without its 4-byte length prefix. */
const unprefixed = (frame: Buffer): Buffer => frame.subarray(4);

/** A naive, independent builder for ROCKETMQ binary frames (docs/protocol.md §1.4). */
function naiveBinaryFrame(o: {
  code: number;
  lang: number;
  version: number;
  opaque: number;
  flag: number;
  remark?: string;
  ext?: Array<[string, string]>;
  body?: Buffer;
}): Buffer {
  const parts: number[] = [];
  const u16 = (v: number) => parts.push((v >> 8) & 0xff, v & 0xff);
  const u32 = (v: number) => parts.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
  const bytes = (b: Buffer) => parts.push(...b);
  u16(o.code);
  parts.push(o.lang);
  u16(o.version);
  u32(o.opaque);
  u32(o.flag);
  const remark = Buffer.from(o.remark ?? '', 'utf8');
  u32(remark.length);
  bytes(remark);
  const ext: number[] = [];
  for (const [k, v] of o.ext ?? []) {
    const kb = Buffer.from(k, 'utf8');
    const vb = Buffer.from(v, 'utf8');
    ext.push((kb.length >> 8) & 0xff, kb.length & 0xff, ...kb);
    ext.push(
      (vb.length >>> 24) & 0xff,
      (vb.length >>> 16) & 0xff,
      (vb.length >>> 8) & 0xff,
      vb.length & 0xff,
      ...vb,
    );
  }
  u32(ext.length);
  parts.push(...ext);
  const header = Buffer.from(parts);
  const body = o.body ?? Buffer.alloc(0);
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(4 + header.length + body.length, 0);
  prefix.writeUInt32BE((1 << 24) | header.length, 4);
  return Buffer.concat([prefix, header, body]);
}

function routeRequest(serializeType: 0 | 1): RemotingCommand {
  const cmd = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TopicTest' }, undefined, {
    language: 'JAVA',
    version: 407,
    serializeType,
  });
  cmd.opaque = 1;
  return cmd;
}

describe('frame codec: §14 vectors', () => {
  it('encodes §14.1 (JSON header) byte for byte', () => {
    assert.equal(encodeFrameToBuffer(routeRequest(SerializeType.JSON)).toString('hex'), V14_1);
  });

  it('encodes §14.1 through encodeFrame as head + no body, with the right size', () => {
    const { head, body, size } = encodeFrame(routeRequest(SerializeType.JSON));
    assert.equal(body, undefined);
    assert.equal(size, 0x87 + 4);
    assert.equal(head.toString('hex'), V14_1);
  });

  it('decodes §14.1', () => {
    const cmd = decodeFrame(unprefixed(hex(V14_1)));
    assert.equal(cmd.code, 105);
    assert.equal(cmd.language, 'JAVA');
    assert.equal(cmd.version, 407);
    assert.equal(cmd.opaque, 1);
    assert.equal(cmd.flag, 0);
    assert.equal(cmd.remark, undefined);
    assert.deepEqual(cmd.extFields, { topic: 'TopicTest' });
    assert.equal(cmd.serializeType, SerializeType.JSON);
    assert.equal(cmd.body, undefined);
  });

  it('encodes §14.2 (ROCKETMQ binary header) byte for byte', () => {
    assert.equal(
      encodeFrameToBuffer(routeRequest(SerializeType.ROCKETMQ)).toString('hex'),
      hex(V14_2).toString('hex'),
    );
  });

  it('the naive builder agrees with the §14.2 vector', () => {
    const naive = naiveBinaryFrame({
      code: 105,
      lang: 0,
      version: 407,
      opaque: 1,
      flag: 0,
      ext: [['topic', 'TopicTest']],
    });
    assert.equal(naive.toString('hex'), hex(V14_2).toString('hex'));
  });

  it('decodes §14.2', () => {
    const cmd = decodeFrame(unprefixed(hex(V14_2)));
    assert.deepEqual(
      { ...cmd },
      {
        code: 105,
        language: 'JAVA',
        version: 407,
        opaque: 1,
        flag: 0,
        remark: undefined,
        extFields: { topic: 'TopicTest' },
        serializeType: SerializeType.ROCKETMQ,
        body: undefined,
      },
    );
  });

  it('encodes §14.3 (binary SUCCESS response with body {}) byte for byte', () => {
    const request = routeRequest(SerializeType.ROCKETMQ);
    const response = createResponse(
      request,
      ResponseCode.SUCCESS,
      undefined,
      undefined,
      Buffer.from('{}'),
      407,
    );
    assert.equal(encodeFrameToBuffer(response).toString('hex'), hex(V14_3).toString('hex'));
    const { head, body } = encodeFrame(response);
    assert.equal(head.length, 8 + 0x15);
    assert.equal(Buffer.from(body!).toString(), '{}');
  });

  it('decodes §14.3 and hands out the body as a view, not a copy', () => {
    const frame = unprefixed(hex(V14_3));
    const cmd = decodeFrame(frame);
    assert.equal(cmd.code, 0);
    assert.equal(cmd.flag, 1);
    assert.equal(cmd.opaque, 1);
    assert.equal(cmd.extFields, undefined);
    assert.equal(Buffer.from(cmd.body!).toString(), '{}');
    assert.equal(cmd.body!.buffer, frame.buffer);
  });

  it('decodes the verified §1.3 send-reply JSON header', () => {
    const header = Buffer.from(
      '{"code":0,"extFields":{"queueId":"1","TRACE_ON":"true","MSG_REGION":"DefaultRegion","msgId":"7F00000100002A9F00000000000004D2","queueOffset":"5"},"flag":1,"language":"JAVA","opaque":2,"serializeTypeCurrentRPC":"JSON","version":407}',
    );
    const frame = Buffer.alloc(4 + header.length);
    frame.writeUInt32BE(header.length, 0);
    header.copy(frame, 4);
    const cmd = decodeFrame(frame);
    assert.equal(cmd.flag, 1);
    assert.equal(cmd.opaque, 2);
    assert.deepEqual(cmd.extFields, {
      queueId: '1',
      TRACE_ON: 'true',
      MSG_REGION: 'DefaultRegion',
      msgId: '7F00000100002A9F00000000000004D2',
      queueOffset: '5',
    });
  });
});

describe('frame codec: round trips', () => {
  const cases: Array<[string, RemotingCommand]> = [
    [
      'JSON request with remark, control chars and non-ASCII',
      {
        code: 310,
        language: 'JAVA',
        version: 407,
        opaque: -5,
        flag: 2,
        remark: 'héllo "quoted" \\ \n',
        extFields: { i: 'UNIQ_KEY\u0001ABC\u0002WAIT\u0001true', b: 'T', 'k/ey': 'v"al' },
        serializeType: SerializeType.JSON,
        body: Buffer.from('hello'),
      },
    ],
    [
      'binary response with remark and body',
      {
        code: 17,
        language: 'GO',
        version: 413,
        opaque: 2147483647,
        flag: 1,
        remark: 'topic[X] not exist, apply first please!',
        extFields: { a: '1', bb: 'ünïcode' },
        serializeType: SerializeType.ROCKETMQ,
        body: Buffer.from([0, 1, 2, 255]),
      },
    ],
  ];
  for (const [name, cmd] of cases) {
    it(name, () => {
      const decoded = decodeFrame(unprefixed(encodeFrameToBuffer(cmd)));
      assert.deepEqual(
        { ...decoded, body: Buffer.from(decoded.body!) },
        { ...cmd, body: Buffer.from(cmd.body!) },
      );
    });
  }

  it('binary: a zero-length extFields value decodes as absent (Java reads it as null)', () => {
    const naive = naiveBinaryFrame({
      code: 10,
      lang: 0,
      version: 407,
      opaque: 3,
      flag: 0,
      ext: [
        ['a', ''],
        ['b', 'x'],
      ],
    });
    assert.deepEqual(decodeFrame(unprefixed(naive)).extFields, { b: 'x' });
  });

  it('binary: a duplicated key keeps the last value (Java fastEncodeHeader may repeat keys)', () => {
    const naive = naiveBinaryFrame({
      code: 10,
      lang: 0,
      version: 407,
      opaque: 3,
      flag: 0,
      ext: [
        ['a', '1'],
        ['a', '2'],
      ],
    });
    assert.deepEqual(decodeFrame(unprefixed(naive)).extFields, { a: '2' });
  });

  it('binary: the code is a signed 16-bit value on the wire', () => {
    const naive = naiveBinaryFrame({ code: 0xffff, lang: 0, version: 407, opaque: 1, flag: 0 });
    assert.equal(decodeFrame(unprefixed(naive)).code, -1);
  });

  it('JSON: language may arrive as a number and unknown fields are ignored', () => {
    const header = Buffer.from('{"code":34,"flag":0,"language":0,"opaque":9,"version":407,"extra":[1,2]}');
    const frame = Buffer.concat([Buffer.from([0, 0, 0, header.length]), header]);
    const cmd = decodeFrame(frame);
    assert.equal(cmd.code, 34);
    assert.equal(cmd.opaque, 9);
  });
});

describe('frame codec: malformed frames are ProtocolErrors', () => {
  const rejects = (name: string, frame: Buffer) =>
    it(name, () => assert.throws(() => decodeFrame(frame), ProtocolError));

  const good = unprefixed(hex(V14_2));
  rejects('empty frame', Buffer.alloc(0));
  rejects('frame shorter than the type word', Buffer.from([1, 0]));
  {
    const f = Buffer.from(good);
    f.writeUInt32BE((1 << 24) | (good.length - 4 + 1), 0);
    rejects('header length past the end', f);
  }
  {
    const f = Buffer.from(good);
    f[0] = 7;
    rejects('unknown serialize type', f);
  }
  {
    const header = Buffer.from('{"code":105,');
    rejects('invalid JSON', Buffer.concat([Buffer.from([0, 0, 0, header.length]), header]));
  }
  {
    const header = Buffer.from('[1,2]');
    rejects(
      'JSON header that is not an object',
      Buffer.concat([Buffer.from([0, 0, 0, header.length]), header]),
    );
  }
  {
    const header = Buffer.from('{"code":"abc","flag":0}');
    rejects('JSON code that is not a number', Buffer.concat([Buffer.from([0, 0, 0, header.length]), header]));
  }
  {
    const header = Buffer.from('{"code":1,"extFields":[1]}');
    rejects(
      'JSON extFields that is not an object',
      Buffer.concat([Buffer.from([0, 0, 0, header.length]), header]),
    );
  }
  // Truncate the binary header at every possible length: never a RangeError.
  const binHeader = good.subarray(4);
  for (let cut = 0; cut < binHeader.length; cut++) {
    const f = Buffer.alloc(4 + cut);
    f.writeUInt32BE((1 << 24) | cut, 0);
    binHeader.copy(f, 4, 0, cut);
    if (cut === 0 || cut < binHeader.length) {
      it(`truncated binary header (${cut} of ${binHeader.length} bytes)`, () => {
        try {
          decodeFrame(f);
        } catch (err) {
          assert.ok(err instanceof ProtocolError, `cut ${cut}: ${String(err)}`);
          return;
        }
        // A cut exactly at an entry boundary inside extFields cannot happen: the map length says 20.
        assert.fail(`cut ${cut} decoded without error`);
      });
    }
  }
  {
    const naive = naiveBinaryFrame({ code: 1, lang: 0, version: 1, opaque: 1, flag: 0, remark: 'abc' });
    const f = unprefixed(naive);
    f.writeInt32BE(-1, 4 + 13);
    rejects('negative remark length', f);
  }
  {
    const naive = naiveBinaryFrame({ code: 1, lang: 0, version: 1, opaque: 1, flag: 0, ext: [['k', 'v']] });
    const f = unprefixed(naive);
    f.writeInt32BE(1000, 4 + 17);
    rejects('extFields length past the header', f);
  }
  {
    const naive = naiveBinaryFrame({ code: 1, lang: 0, version: 1, opaque: 1, flag: 0, ext: [['k', 'v']] });
    const f = unprefixed(naive);
    f.writeInt32BE(-2, 4 + 21 + 1 + 2); // the value length of entry "k"
    rejects('negative extFields value length', f);
  }
});

describe('JSON header text', () => {
  /** Reference: JSON.stringify of an object built in fastjson's alphabetical key order. */
  function reference(cmd: RemotingCommand): string {
    const o: Record<string, unknown> = { code: cmd.code };
    if (cmd.extFields !== undefined) o.extFields = cmd.extFields;
    o.flag = cmd.flag;
    o.language = cmd.language;
    o.opaque = cmd.opaque;
    if (cmd.remark !== undefined) o.remark = cmd.remark;
    o.serializeTypeCurrentRPC = 'JSON';
    o.version = cmd.version;
    return JSON.stringify(o);
  }

  const samples: RemotingCommand[] = [
    { code: 34, language: 'JAVA', version: 407, opaque: 0, flag: 0, serializeType: 0 },
    {
      code: 1,
      language: 'JAVA',
      version: 407,
      opaque: -2147483648,
      flag: 1,
      remark: 'line\nbreak "q" \\ \u0000 \u2028 ü 中 \ud83d\ude00 lone \ud800',
      extFields: { '': '', 'k"': 'v\u0001\u0002', ü: '/' },
      serializeType: 0,
    },
  ];
  for (const [i, cmd] of samples.entries()) {
    it(`matches JSON.stringify byte for byte (sample ${i})`, () => {
      const { head } = encodeFrame(cmd);
      const expected = Buffer.from(reference(cmd), 'utf8');
      assert.equal(head.readUInt32BE(4), expected.length);
      assert.deepEqual(head.subarray(8), expected);
    });
  }

  it('createRequest presents as a Java 4.9.7 client and stringifies every header value', () => {
    const cmd = createRequest(RequestCode.QUERY_CONSUMER_OFFSET, {
      consumerGroup: 'g',
      queueId: 3,
      flag: true,
      none: undefined,
    });
    assert.equal(cmd.language, 'JAVA');
    assert.equal(cmd.version, 407);
    assert.equal(cmd.serializeType, SerializeType.JSON);
    assert.deepEqual(cmd.extFields, { consumerGroup: 'g', queueId: '3', flag: 'true' });
  });
});

describe('command defaults', () => {
  it('default to JAVA / 407 / JSON and validate overrides', () => {
    assert.deepEqual({ ...resolveCommandDefaults() }, { language: 'JAVA', version: 407, serializeType: 0 });
    assert.deepEqual(
      { ...resolveCommandDefaults({ language: 'OTHER', version: 413, serializeType: 1 }) },
      { language: 'OTHER', version: 413, serializeType: 1 },
    );
    assert.throws(() => resolveCommandDefaults({ language: 'KLINGON' }), InvalidArgumentError);
    assert.throws(() => resolveCommandDefaults({ version: 40000 }), InvalidArgumentError);
    assert.throws(() => resolveCommandDefaults({ serializeType: 2 as 0 }), InvalidArgumentError);
  });
});
