import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { prepareBatch, prepareMessage, type Message } from '../../src/producer/message.js';
import { batchLaneOf, type BatchLane } from '../../src/producer/auto-batch.js';
import { buildSendRequest } from '../../src/producer/request-builder.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { decodeProperties, encodeProperties } from '../../src/protocol/message/properties.js';
import { BatchWriter, decodeBatch } from '../../src/protocol/message/batch.js';
import { decompressBody } from '../../src/protocol/message/compression.js';
import { DEFAULT_COMMAND_DEFAULTS } from '../../src/protocol/command.js';

const ids = new UniqIdGenerator();
const settings = {
  maxMessageSize: 1024 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
};

function field(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    return err.field;
  }
  assert.fail('expected InvalidArgumentError');
}

describe('message validation and preparation', () => {
  it('rejects bad fields, naming them', () => {
    const ok: Message = { topic: 'T', body: 'x' };
    assert.equal(
      field(() => prepareMessage({ ...ok, topic: '' }, settings, ids)),
      'topic',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, topic: 'a b' }, settings, ids)),
      'topic',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, topic: 'x'.repeat(128) }, settings, ids)),
      'topic',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, topic: 'SCHEDULE_TOPIC_XXXX' }, settings, ids)),
      'topic',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, body: '' }, settings, ids)),
      'body',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, body: 42 as unknown as string }, settings, ids)),
      'body',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, body: Buffer.alloc(1024 * 1024 + 1) }, settings, ids)),
      'body',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, tags: 'a\u0001b' }, settings, ids)),
      'tags',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, keys: ['k', 'a\u0002'] }, settings, ids)),
      'keys',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, properties: { UNIQ_KEY: 'x' } }, settings, ids)),
      'properties.UNIQ_KEY',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, properties: { a: 'b\u0001' } }, settings, ids)),
      'properties.a',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, delayTimeLevel: -1 }, settings, ids)),
      'delayTimeLevel',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, flag: 2 ** 40 }, settings, ids)),
      'flag',
    );
    assert.equal(
      field(() => prepareMessage({ ...ok, topic: 'x'.repeat(125) }, { ...settings, namespace: 'ns' }, ids)),
      'topic',
    );
  });

  it('encodes tags, keys (space-joined), WAIT, DELAY, user properties and a fresh UNIQ_KEY', () => {
    const msg: Message = {
      topic: 'T',
      body: 'hello',
      tags: 'TagA',
      keys: ['k1', 'k2'],
      properties: { color: 'red' },
      delayTimeLevel: 3,
    };
    const p = prepareMessage(msg, settings, ids);
    const props = decodeProperties(p.properties);
    assert.equal(props['TAGS'], 'TagA');
    assert.equal(props['KEYS'], 'k1 k2');
    assert.equal(props['WAIT'], 'true');
    assert.equal(props['DELAY'], '3');
    assert.equal(props['color'], 'red');
    assert.match(props['UNIQ_KEY'] ?? '', /^[0-9A-F]{32}$/);
    assert.equal(p.msgId, props['UNIQ_KEY']);
    assert.notEqual(prepareMessage(msg, settings, ids).msgId, p.msgId);
    assert.equal(
      decodeProperties(prepareMessage({ ...msg, waitStoreMsgOK: false }, settings, ids).properties)['WAIT'],
      'false',
    );
  });

  it('properties strings are unchanged, and a batch record from the parts equals one from the string', () => {
    const cases: Message[] = [
      { topic: 'T', body: 'x' },
      { topic: 'T', body: 'x', waitStoreMsgOK: false },
      { topic: 'T', body: 'x', delayTimeLevel: 0 },
      { topic: 'T', body: 'x', tags: 'TagA', keys: ['k1', 'ключ'], properties: { color: 'rot–grün' } },
      { topic: 'T', body: 'x', properties: { a: '1' }, waitStoreMsgOK: false },
      { topic: 'T', body: 'x', deliverAfterMs: 5000 },
    ];
    const parts = new BatchWriter(64);
    const whole = new BatchWriter(64);
    for (const msg of cases) {
      const p = prepareMessage(msg, settings, ids);
      const expected = encodeProperties({
        ...(msg.keys === undefined ? {} : { KEYS: (msg.keys as string[]).join(' ') }),
        ...(msg.tags === undefined ? {} : { TAGS: msg.tags }),
        WAIT: msg.waitStoreMsgOK === false ? 'false' : 'true',
        ...msg.properties,
        ...(msg.deliverAfterMs === undefined ? {} : { TIMER_DELAY_MS: String(msg.deliverAfterMs) }),
        UNIQ_KEY: p.msgId,
      });
      assert.equal(p.properties, expected);
      assert.equal(
        p.properties,
        `${p.propertiesHead}${p.msgIdHead}${p.msgIdCounter?.toString(16).toUpperCase().padStart(4, '0')}`,
      );
      parts.appendParts(p.body, p.flag, p.propertiesHead!, p.msgIdHead!, p.msgIdCounter!);
      whole.append(p.body, p.flag, p.properties);
    }
    assert.equal(parts.finish().toString('hex'), whole.finish().toString('hex'));
  });

  it('compresses a 4 KiB+ body without touching the caller’s message', () => {
    const body = Buffer.from('abc'.repeat(2000));
    const msg: Message = { topic: 'T', body, keys: ['a'] };
    const snapshot = JSON.stringify(msg);
    const p = prepareMessage(msg, { ...settings, namespace: 'ns' }, ids);
    assert.equal(p.sysFlag, 0x301);
    assert.ok(p.body.byteLength < body.byteLength);
    assert.deepEqual(decompressBody(p.body, p.sysFlag), body);
    assert.equal(p.topic, 'ns%T');
    assert.equal(p.userTopic, 'T');
    assert.equal(JSON.stringify(msg), snapshot, 'caller object unchanged');
    assert.equal(msg.body, body);
    const small = prepareMessage({ topic: 'T', body: Buffer.alloc(4095, 1) }, settings, ids);
    assert.equal(small.sysFlag, 0);
  });

  it('builds a V2 header with keys a..n exactly like Java, and the body is not copied', () => {
    const p = prepareMessage({ topic: 'T', body: Buffer.from('hi'), tags: 'TagA' }, settings, ids);
    const cmd = buildSendRequest(
      p,
      { topic: 'T', brokerName: 'broker-a', queueId: 3 },
      {
        producerGroup: 'PG',
        createTopicKey: 'TBW102',
        defaultTopicQueueNums: 4,
        commandDefaults: DEFAULT_COMMAND_DEFAULTS,
      },
      1700000000000,
    );
    assert.equal(cmd.code, 310);
    assert.deepEqual(Object.keys(cmd.extFields ?? {}), [
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
      'k',
      'm',
      'n',
    ]);
    assert.deepEqual(cmd.extFields, {
      a: 'PG',
      b: 'T',
      c: 'TBW102',
      d: '4',
      e: '3',
      f: '0',
      g: '1700000000000',
      h: '0',
      i: p.properties,
      j: '0',
      k: 'false',
      m: 'false',
      n: 'broker-a',
    });
    assert.equal(cmd.body, p.body);
  });

  it('a batch gets one UNIQ_KEY per message and a WAIT-only outer property', () => {
    const msgs: Message[] = Array.from({ length: 5 }, (_, i) => ({ topic: 'T', body: `m${i}`, tags: 'B' }));
    const p = prepareBatch(msgs, settings, ids);
    const entries = decodeBatch(p.body);
    assert.equal(entries.length, 5);
    const uniq = entries.map((e) => decodeProperties(e.properties)['UNIQ_KEY']);
    assert.equal(new Set(uniq).size, 5);
    assert.equal(p.msgId, uniq.join(','));
    assert.equal(p.properties, 'WAIT\u0001true');
    assert.equal(Buffer.from(entries[2]?.body ?? []).toString(), 'm2');
    const cmd = buildSendRequest(
      p,
      { topic: 'T', brokerName: 'b', queueId: 0 },
      {
        producerGroup: 'PG',
        createTopicKey: 'TBW102',
        defaultTopicQueueNums: 4,
        commandDefaults: DEFAULT_COMMAND_DEFAULTS,
      },
    );
    assert.equal(cmd.code, 320);
    assert.equal(cmd.extFields?.['m'], 'true');
  });

  it('enforces Java’s batch limits', () => {
    const m: Message = { topic: 'T', body: 'x' };
    assert.equal(
      field(() => prepareBatch([], settings, ids)),
      'messages',
    );
    assert.equal(
      field(() => prepareBatch([m, { ...m, topic: 'U' }], settings, ids)),
      'messages[1].topic',
    );
    assert.equal(
      field(() => prepareBatch([m, { ...m, waitStoreMsgOK: false }], settings, ids)),
      'messages[1].waitStoreMsgOK',
    );
    assert.equal(
      field(() => prepareBatch([m, { ...m, delayTimeLevel: 2 }], settings, ids)),
      'messages[1].delayTimeLevel',
    );
    assert.equal(
      field(() => prepareBatch([{ ...m, topic: '%RETRY%G' }], settings, ids)),
      'messages[0].topic',
    );
    const big = { ...m, body: Buffer.alloc(600 * 1024) };
    assert.equal(
      field(() => prepareBatch([big, big], settings, ids)),
      'messages',
    );
  });
});

describe('Message.msgId: a stored message sent again under its own id', () => {
  const own = '7F00000100002A9F0000000000000001';
  it('is the UNIQ_KEY and the msgId, single and in a batch; absent means a new id', () => {
    const one = prepareMessage({ topic: 'T', body: 'x', keys: 'k', msgId: own }, settings, ids);
    assert.equal(one.msgId, own);
    assert.equal(decodeProperties(one.properties)['UNIQ_KEY'], own);
    assert.equal(decodeProperties(one.properties)['KEYS'], 'k');
    // not the generator's head + counter: autoBatch writes `properties` as they are
    assert.equal(one.msgIdHead, undefined);
    const fresh = prepareMessage({ topic: 'T', body: 'x' }, settings, ids);
    assert.notEqual(fresh.msgId, own);
    const batch = prepareBatch(
      [
        { topic: 'T', body: 'a', msgId: own },
        { topic: 'T', body: 'b' },
      ],
      settings,
      ids,
    );
    const [first, second] = batch.msgId.split(',');
    assert.equal(first, own);
    assert.notEqual(second, own);
    assert.equal(decodeProperties(decodeBatch(batch.body)[0]!.properties)['UNIQ_KEY'], own);
  });

  it('rejects a blank, long or control-character id, naming the field', () => {
    for (const bad of ['', '  ', 'x'.repeat(129), 'a\u0001b', 'a,b', 42 as unknown as string])
      assert.equal(
        field(() => prepareMessage({ topic: 'T', body: 'x', msgId: bad }, settings, ids)),
        'msgId',
        JSON.stringify(bad),
      );
    assert.equal(
      field(() => prepareBatch([{ topic: 'T', body: 'x', msgId: '' }], settings, ids)),
      'messages[0].msgId',
    );
  });
});

describe('prepareMessage: the autoBatch lane it decides', () => {
  const cases: [string, Message, BatchLane][] = [
    ['a plain message', { topic: 'T', body: 'x' }, 'wait'],
    ['waitStoreMsgOK false', { topic: 'T', body: 'x', waitStoreMsgOK: false }, 'noWait'],
    ['a delay level', { topic: 'T', body: 'x', delayTimeLevel: 2 }, 'alone'],
    ['delay level 0 (none)', { topic: 'T', body: 'x', delayTimeLevel: 0 }, 'wait'],
    ['deliverAfterMs', { topic: 'T', body: 'x', deliverAfterMs: 1000 }, 'alone'],
    ['deliverAt', { topic: 'T', body: 'x', deliverAt: Date.now() + 60_000 }, 'alone'],
    ['a compressed body', { topic: 'T', body: 'z'.repeat(8000) }, 'alone'],
    ['a %RETRY% topic', { topic: '%RETRY%G', body: 'x' }, 'alone'],
    [
      'user properties and keys',
      { topic: 'T', body: 'x', keys: ['a', 'b'], properties: { NODELAY: '1' } },
      'wait',
    ],
  ];
  for (const [name, message, lane] of cases) {
    it(`${name}: ${lane}, as a scan of its properties says`, () => {
      const p = prepareMessage(message, settings, ids);
      assert.equal(p.batchLane, lane);
      assert.equal(batchLaneOf({ ...p, batchLane: undefined }), lane);
    });
  }

  it('a topic is checked once per producer, and a bad one every time', () => {
    const checked = { ...settings, checkedTopics: new Map<string, string>() };
    assert.equal(prepareMessage({ topic: 'T', body: 'x' }, checked, ids).topic, 'T');
    assert.deepEqual([...checked.checkedTopics], [['T', 'T']]);
    for (let i = 0; i < 2; i++)
      assert.equal(
        field(() => prepareMessage({ topic: 'a b', body: 'x' }, checked, ids)),
        'topic',
      );
    assert.equal(checked.checkedTopics.size, 1);
    const ns = { ...settings, namespace: 'NS', checkedTopics: new Map<string, string>() };
    assert.equal(prepareMessage({ topic: 'T', body: 'x' }, ns, ids).topic, 'NS%T');
    assert.equal(prepareMessage({ topic: 'T', body: 'x' }, ns, ids).topic, 'NS%T');
  });
});
