/**
 * Typed topics through Admin on an embedded two-broker cluster: messageType and attributes on
 * create and update (Java's `+key=value,-key` rules), read back by topicConfig and topicList,
 * kept across a broker restart; bad input refused before any request.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { attributesText } from '../../src/admin/topics.js';
import { BrokerResponseError, InvalidArgumentError } from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import {
  alterTopicAttributes,
  encodeAttributeModification,
  parseAttributeModification,
} from '../../src/protocol/topic-attributes.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { unique } from '../consumer/helpers.js';

test('typed topic: FIFO with attributes on two brokers, read back, updated, kept across a restart', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 2 });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  try {
    const fifo = unique('TypedFifo');
    const plain = unique('Plain');
    await admin.createTopic({
      topic: fifo,
      cluster: 'DefaultCluster',
      messageType: 'FIFO',
      attributes: { 'reserve.time': '60' },
    });
    await admin.createTopic({ topic: plain, cluster: 'DefaultCluster' });

    const configs = await admin.topicConfig(fifo);
    assert.deepEqual(
      configs.map((c) => [c.brokerName, c.messageType, c.order, c.attributes]),
      [
        ['broker-a', 'FIFO', true, { 'message.type': 'FIFO', 'reserve.time': '60' }],
        ['broker-b', 'FIFO', true, { 'message.type': 'FIFO', 'reserve.time': '60' }],
      ],
    );
    const [untyped] = await admin.topicConfig(plain);
    assert.equal(untyped?.messageType, 'NORMAL');
    assert.deepEqual(untyped?.attributes, {});
    assert.equal(untyped?.order, false);

    const list = await admin.topicList();
    const entry = list.find((e) => e.topic === fifo);
    assert.deepEqual(entry, {
      topic: fifo,
      messageType: 'FIFO',
      attributes: { 'message.type': 'FIFO', 'reserve.time': '60' },
      order: true,
      brokers: ['broker-a', 'broker-b'],
    });
    assert.equal(list.find((e) => e.topic === plain)?.messageType, 'NORMAL');

    // Update: the type may change (changeable in Java), a key is removed with Java's text form;
    // an update that names no attributes keeps them.
    await admin.updateTopic({ topic: fifo, cluster: 'DefaultCluster', writeQueues: 4, order: true });
    assert.equal((await admin.topicConfig(fifo))[0]?.attributes['reserve.time'], '60');
    await admin.updateTopic({
      topic: fifo,
      brokers: ['broker-a'],
      messageType: 'DELAY',
      attributes: '-reserve.time',
    });
    const [a, b] = await admin.topicConfig(fifo);
    assert.deepEqual(a?.attributes, { 'message.type': 'DELAY' });
    assert.equal(a?.writeQueues, 8);
    assert.equal(b?.messageType, 'FIFO');

    // The broker's refusals, with Java's messages, change nothing.
    const refusals: Array<[Parameters<Admin['createTopic']>[0], RegExp]> = [
      [
        { topic: fifo, brokers: ['broker-a'], attributes: { 'queue.type': 'BatchCQ' } },
        /unchangeable attribute/,
      ],
      [
        { topic: fifo, brokers: ['broker-a'], attributes: { 'no.such.key': 'x' } },
        /unsupported key: no\.such\.key/,
      ],
      [{ topic: fifo, brokers: ['broker-a'], attributes: { 'cleanup.policy': null } }, /nonexistent key/],
      [{ topic: unique('New'), brokers: ['broker-a'], attributes: '-reserve.time' }, /only add attribute/],
      [{ topic: fifo, brokers: ['broker-a'], messageType: 'MIXED' }, /MIXED message type is not supported/],
    ];
    for (const [request, remark] of refusals) {
      await assert.rejects(admin.updateTopic(request), (err: unknown) => {
        assert.ok(err instanceof BrokerResponseError, String(err));
        assert.ok(
          err.responseCode === ResponseCode.SYSTEM_ERROR ||
            err.responseCode === ResponseCode.INVALID_PARAMETER,
        );
        assert.match(err.remark ?? '', remark);
        return true;
      });
    }
    assert.deepEqual((await admin.topicConfig(fifo))[0]?.attributes, { 'message.type': 'DELAY' });

    // Durable: the attributes come back from config/topics.json after a restart.
    await cluster.stopBroker('broker-a');
    await cluster.startBroker('broker-a');
    const after = await admin.topicConfig(fifo);
    assert.deepEqual(after[0]?.attributes, { 'message.type': 'DELAY' });
    assert.equal(after[0]?.messageType, 'DELAY');
  } finally {
    await admin.close();
    await cluster.stop();
  }
});

test('typed topic bad input: InvalidArgumentError before any request', async () => {
  // Nothing listens on port 1: a request made before the check would fail differently.
  const admin = new Admin({ namesrvAddr: '127.0.0.1:1' });
  try {
    const base = { topic: 'T1', cluster: 'C' };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ messageType: 'ORDERED' }, 'messageType'],
      [{ attributes: 'k=v' }, 'attributes'],
      [{ attributes: '+k' }, 'attributes'],
      [{ attributes: '+k=' }, 'attributes'],
      [{ attributes: '-k=v' }, 'attributes'],
      [{ attributes: '+k=a=b' }, 'attributes'],
      [{ attributes: '+k=v,+k=w' }, 'attributes'],
      [{ attributes: '+a-b=v' }, 'attributes'],
      [{ attributes: { k: 'a b' } }, 'attributes'],
      [{ attributes: { k: 5 } }, 'attributes'],
      [{ attributes: ['+k=v'] }, 'attributes'],
      [{ messageType: 'FIFO', attributes: { 'message.type': 'FIFO' } }, 'attributes'],
      [{ order: 'yes' }, 'order'],
    ];
    for (const [extra, field] of bad) {
      await assert.rejects(
        admin.createTopic({ ...base, ...extra } as Parameters<Admin['createTopic']>[0]),
        (err: unknown) => err instanceof InvalidArgumentError && err.message.includes(field),
        JSON.stringify(extra),
      );
    }
  } finally {
    await admin.close();
  }
});

test('attribute text: both forms give the text mqadmin updateTopic -a sends, type first', () => {
  assert.equal(
    attributesText({ topic: 'T', messageType: 'FIFO', attributes: { 'reserve.time': '5', x: null } }),
    '+message.type=FIFO,+reserve.time=5,-x',
  );
  assert.equal(attributesText({ topic: 'T', attributes: '+k=v,-k2' }), '+k=v,-k2');
  assert.equal(attributesText({ topic: 'T' }), undefined);
  assert.equal(encodeAttributeModification(parseAttributeModification(' +a=1,-b ')), '+a=1,-b');
});

test("broker attribute rule: Java's alterCurrentAttributes cases", () => {
  assert.deepEqual(alterTopicAttributes(true, {}, '+message.type=FIFO'), { 'message.type': 'FIFO' });
  assert.deepEqual(alterTopicAttributes(false, { 'message.type': 'FIFO' }, undefined), {
    'message.type': 'FIFO',
  });
  assert.deepEqual(
    alterTopicAttributes(
      false,
      { 'message.type': 'FIFO', 'reserve.time': '3' },
      '-reserve.time,+message.type=NORMAL',
    ),
    { 'message.type': 'NORMAL' },
  );
  assert.throws(() => alterTopicAttributes(true, {}, '+message.type=ORDERED'), /value is not in set/);
  assert.throws(() => alterTopicAttributes(true, {}, '+reserve.time=x'), /For input string/);
  assert.throws(() => alterTopicAttributes(true, {}, '+lite.topic.expiration=99999999'), /not in range/);
  assert.throws(
    () => alterTopicAttributes(false, {}, '+message.type=FIFO,+message.type=DELAY'),
    /duplication/,
  );
  assert.throws(() => alterTopicAttributes(false, {}, 'message.type=FIFO'), /wrong format key/);
  assert.throws(() => alterTopicAttributes(false, {}, '+'), /kv string format wrong/);
  assert.throws(() => alterTopicAttributes(false, {}, '+cleanup.policy=DELETE'), /unchangeable/);
  assert.deepEqual(alterTopicAttributes(true, {}, '+cleanup.policy=COMPACTION'), {
    'cleanup.policy': 'COMPACTION',
  });
});

test('topicConfig on a broker without GET_TOPIC_CONFIG (4.x): read from GET_ALL_TOPIC_CONFIG', async () => {
  const cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
  const admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  try {
    const topic = unique('Old');
    await admin.createTopic({ topic, cluster: 'DefaultCluster', messageType: 'DELAY', writeQueues: 3 });
    // The broker answers 351 as a 4.9 broker does.
    cluster.broker('broker-a').faults.set({
      errorCode: ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      requestCodes: [RequestCode.GET_TOPIC_CONFIG],
    });
    const [config] = await admin.topicConfig(topic);
    assert.equal(config?.messageType, 'DELAY');
    assert.equal(config?.writeQueues, 3);
    assert.equal(config?.brokerName, 'broker-a');
  } finally {
    await admin.close();
    await cluster.stop();
  }
});
