/** What each request code needs (Java PlainAccessValidator#parse plus the 5.x POP and transaction codes). */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { RequestCode } from '../../../src/protocol/codes.js';
import { createRequest } from '../../../src/protocol/command.js';
import { neededResources } from '../../../src/server/acl/access-validator.js';
import { Perm } from '../../../src/server/acl/permission.js';
import { heartbeatBody } from '../broker/rpc-helpers.js';

const need = (code: number, ext: Record<string, string>, body?: Buffer): Record<string, number> =>
  Object.fromEntries(neededResources(createRequest(code, ext, body)));

test('sends need PUB on the topic; a send to a retry topic needs SUB on the group', () => {
  assert.deepEqual(need(RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'T' }), { T: Perm.PUB });
  assert.deepEqual(need(RequestCode.SEND_MESSAGE_V2, { a: 'G', b: '%RETRY%G' }), { '%RETRY%G': Perm.SUB });
  assert.deepEqual(need(RequestCode.SEND_MESSAGE, { producerGroup: 'PG', topic: 'T' }), { T: Perm.PUB });
  assert.deepEqual(need(RequestCode.SEND_BATCH_MESSAGE, { a: 'PG', b: 'T' }), { T: Perm.PUB });
  assert.deepEqual(need(RequestCode.SEND_REPLY_MESSAGE, { producerGroup: 'PG', topic: 'T' }), {
    T: Perm.PUB,
  });
  assert.deepEqual(need(RequestCode.SEND_REPLY_MESSAGE_V2, { a: 'PG', b: 'T' }), { T: Perm.PUB });
  // Stricter than Java: the retry topic written to is checked, not the group field.
  assert.deepEqual(need(RequestCode.SEND_MESSAGE_V2, { a: 'Own', b: '%RETRY%Other' }), {
    '%RETRY%Other': Perm.SUB,
  });
  assert.deepEqual(need(RequestCode.CONSUMER_SEND_MSG_BACK, { group: 'G' }), { '%RETRY%G': Perm.SUB });
});

test('pull, POP, ack and offset commits need SUB on topic and group', () => {
  for (const code of [
    RequestCode.PULL_MESSAGE,
    RequestCode.POP_MESSAGE,
    RequestCode.ACK_MESSAGE,
    RequestCode.CHANGE_MESSAGE_INVISIBLETIME,
    RequestCode.UPDATE_CONSUMER_OFFSET,
  ])
    assert.deepEqual(
      need(code, { consumerGroup: 'G', topic: 'T' }),
      { T: Perm.SUB, '%RETRY%G': Perm.SUB },
      `code ${code}`,
    );
  // Stricter than Java (which checks nothing): reading a group's offset needs SUB too.
  assert.deepEqual(need(RequestCode.QUERY_CONSUMER_OFFSET, { consumerGroup: 'G', topic: 'T' }), {
    T: Perm.SUB,
    '%RETRY%G': Perm.SUB,
  });
});

test('a heartbeat needs SUB on each consumer group and subscribed topic; a malformed body throws', () => {
  const body = heartbeatBody('cid', 'G', [{ topic: 'T1' }, { topic: 'T2' }]);
  assert.deepEqual(need(RequestCode.HEART_BEAT, {}, body), {
    '%RETRY%G': Perm.SUB,
    T1: Perm.SUB,
    T2: Perm.SUB,
  });
  assert.throws(() => need(RequestCode.HEART_BEAT, {}, Buffer.from('{"consumerDataSet":[')));
});

test('END_TRANSACTION needs PUB on its topic when the header carries one (5.x)', () => {
  assert.deepEqual(need(RequestCode.END_TRANSACTION, { producerGroup: 'PG' }), {});
  assert.deepEqual(need(RequestCode.END_TRANSACTION, { producerGroup: 'PG', topic: 'T' }), { T: Perm.PUB });
});
