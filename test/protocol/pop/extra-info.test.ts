import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ProtocolError } from '../../../src/errors.js';
import {
  buildExtraInfo,
  buildMsgOffsetInfo,
  buildOrderCountInfo,
  buildStartOffsetInfo,
  extraInfoPrefix,
  isOrderly,
  parseExtraInfo,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  queueKey,
  queueOffsetKey,
  orderOffsetField,
  realTopic,
  retryFlagOf,
} from '../../../src/protocol/pop/extra-info.js';
import { requestDeclaration } from '../../../src/protocol/headers/registry.js';
import { PopMessage } from '../../../src/protocol/headers/pop.js';

test('the gRPC receipt handle of rocketmq-clients#808 parses into its nine fields and back', () => {
  const text = '194 1722325671049 600000 0 0 broker-b 1 194 5228468';
  const info = parseExtraInfo(text);
  assert.deepEqual(info, {
    ckQueueOffset: 194,
    popTime: 1722325671049,
    invisibleTime: 600000,
    reviveQid: 0,
    retryFlag: '0',
    brokerName: 'broker-b',
    queueId: 1,
    msgQueueOffset: 194,
    commitLogOffset: 5228468,
  });
  assert.equal(buildExtraInfo(info), text);
  const { commitLogOffset: _drop, ...eight } = info;
  assert.equal(buildExtraInfo(eight), '194 1722325671049 600000 0 0 broker-b 1 194');
  assert.deepEqual(parseExtraInfo('194 1722325671049 600000 0 0 broker-b 1 194'), eight);
  // A POP response builds the first seven fields once per queue: with any offset appended, the
  // same handle as the whole build.
  assert.equal(extraInfoPrefix(eight), '194 1722325671049 600000 0 0 broker-b 1 ');
  assert.equal(extraInfoPrefix(eight) + '225', buildExtraInfo({ ...eight, msgQueueOffset: 225 }));
  assert.equal(isOrderly(info), false);
  assert.equal(isOrderly({ reviveQid: 999 }), true);
});

test('malformed handles are ProtocolErrors', () => {
  for (const bad of [
    '',
    '1 2 3',
    '1 2 3 4 5 b 6 7 8 9',
    'x 2 3 4 0 b 6 7',
    '1 2 3 4 9 b 6 7',
    '1 2 3 4 0  6 7',
  ])
    assert.throws(() => parseExtraInfo(bad), ProtocolError, bad);
});

test('retry flags and the real topic follow ExtraInfoUtil / KeyBuilder', () => {
  assert.equal(retryFlagOf('T'), '0');
  assert.equal(retryFlagOf('%RETRY%G_T'), '1');
  assert.equal(retryFlagOf('%RETRY%G+T'), '2');
  assert.equal(realTopic({ retryFlag: '0' }, 'T', 'G'), 'T');
  assert.equal(realTopic({ retryFlag: '1' }, 'T', 'G'), '%RETRY%G_T');
  assert.equal(realTopic({ retryFlag: '2' }, 'T', 'G'), '%RETRY%G+T');
});

test('startOffsetInfo, msgOffsetInfo and orderCountInfo round-trip in the broker header format', () => {
  const start = buildStartOffsetInfo([
    { retryFlag: '0', queue: '3', value: 10 },
    { retryFlag: '1', queue: '0', value: 4 },
  ]);
  assert.equal(start, '0 3 10;1 0 4');
  assert.deepEqual(
    parseStartOffsetInfo(start),
    new Map([
      ['0@3', 10],
      ['1@0', 4],
    ]),
  );
  const msgs = buildMsgOffsetInfo([
    { retryFlag: '0', queue: '3', value: [10, 11, 13] },
    { retryFlag: '1', queue: '0', value: [4] },
  ]);
  assert.equal(msgs, '0 3 10,11,13;1 0 4');
  assert.deepEqual(
    parseMsgOffsetInfo(msgs),
    new Map([
      ['0@3', [10, 11, 13]],
      ['1@0', [4]],
    ]),
  );
  const counts = buildOrderCountInfo([{ retryFlag: '0', queue: orderOffsetField(2, 7), value: 3 }]);
  assert.equal(counts, '0 qo2%7 3');
  assert.equal(parseOrderCountInfo(counts).get(queueOffsetKey('0', 2, 7)), 3);
  assert.equal(queueKey('1', 5), '1@5');
  assert.equal(parseStartOffsetInfo(undefined).size, 0);
  assert.throws(() => parseStartOffsetInfo('0 1'), ProtocolError);
  assert.throws(() => parseStartOffsetInfo('0 1 2;0 1 3'), ProtocolError);
  assert.throws(() => parseMsgOffsetInfo('0 1 2,x'), ProtocolError);
});

test('POP_MESSAGE is declared once, with the 5.x field names, and in the registry', () => {
  assert.equal(requestDeclaration(200050), PopMessage);
  assert.equal(requestDeclaration(200051)?.name, 'ACK_MESSAGE');
  assert.equal(requestDeclaration(200053)?.name, 'CHANGE_MESSAGE_INVISIBLETIME');
  assert.equal(requestDeclaration(200054)?.name, 'NOTIFICATION');
  const ext = PopMessage.encode({
    consumerGroup: 'G',
    topic: 'T',
    queueId: -1,
    maxMsgNums: 32,
    invisibleTime: 60000,
    pollTime: 30000,
    bornTime: 1,
    initMode: 1,
    order: true,
  });
  assert.deepEqual(ext, {
    consumerGroup: 'G',
    topic: 'T',
    queueId: '-1',
    maxMsgNums: '32',
    invisibleTime: '60000',
    pollTime: '30000',
    bornTime: '1',
    initMode: '1',
    order: 'true',
  });
});
