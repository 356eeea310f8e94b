/**
 * Clients with `credentials` against the embedded broker with ACL on: a producer and a push
 * consumer work end to end (every request signed, heartbeats and offset commits included); a
 * wrong secret or a missing permission is an AccessDeniedError at once, never retried.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { accessDenied, errorFromResponse } from '../../src/client/response-error.js';
import { resolveClientConnection } from '../../src/client/connection-options.js';
import { clientInstances } from '../../src/client/instance-registry.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { PushConsumer } from '../../src/consumer/push/push-consumer.js';
import { AccessDeniedError, BrokerResponseError, InvalidArgumentError } from '../../src/errors.js';
import { Producer } from '../../src/producer/producer.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, createRequest } from '../../src/protocol/command.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { TEST_ACL, USER } from '../server/acl/helpers.js';
import { uniqueName } from '../server/broker/rpc-helpers.js';
import { FAST, waitFor } from '../consumer/helpers.js';

describe('clients with credentials against an ACL broker', () => {
  let cluster: EmbeddedCluster;
  const producers: Producer[] = [];
  const producer = async (credentials: { accessKey: string; secretKey: string }): Promise<Producer> => {
    const p = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      credentials,
      instanceName: uniqueName('i'),
    });
    producers.push(p);
    await p.start();
    return p;
  };
  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: TEST_ACL } });
    await cluster.createTopic('TopicOk', 2);
    await cluster.createTopic('TopicSubOnly', 2);
  });
  after(async () => {
    for (const p of producers) await p.shutdown();
    await cluster.stop();
  });

  it('a signed producer sends and a signed push consumer consumes and commits', async () => {
    const p = await producer(USER);
    const sent = new Set<string>();
    for (let i = 0; i < 5; i++) sent.add((await p.send({ topic: 'TopicOk', body: `m${i}` })).msgId);
    const c = new PushConsumer({
      ...FAST,
      consumerGroup: 'GroupA',
      namesrvAddr: cluster.namesrvAddr,
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      credentials: USER,
      instanceName: uniqueName('c'),
    });
    const got = new Set<string>();
    c.subscribe('TopicOk');
    await c.start((m: ConsumerMessage) => void got.add(m.msgId));
    try {
      await waitFor(() => [...sent].every((id) => got.has(id)), 'all 5 messages consumed');
    } finally {
      await c.shutdown();
    }
  });

  it('a wrong secret: AccessDeniedError on the first attempt, not retried', async () => {
    const p = await producer({ accessKey: USER.accessKey, secretKey: 'not-the-secret' });
    const err = await p.send({ topic: 'TopicOk', body: 'x' }).then(
      () => assert.fail('send must be refused'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AccessDeniedError, String(err));
    assert.equal(err.retriable, false);
    assert.equal(err.responseCode, ResponseCode.NO_PERMISSION);
    assert.equal(err.remark, `Check signature failed for accessKey=${USER.accessKey}`);
  });

  it('a missing permission names the resource and the permission', async () => {
    const p = await producer(USER);
    const err = await p.send({ topic: 'TopicSubOnly', body: 'x' }).then(
      () => assert.fail('send must be refused'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof AccessDeniedError, String(err));
    assert.equal(err.resource, 'topic:TopicSubOnly');
    assert.equal(err.permission, 'PUB');
    assert.match(err.message, /PUB on topic:TopicSubOnly/);
  });

  it('clients with different credentials do not share a client instance', async () => {
    const before = clientInstances().length;
    const a = await producer(USER);
    const b = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      credentials: { accessKey: USER.accessKey, secretKey: 'another-secret' },
      instanceName: 'shared-name',
    });
    const a2 = new Producer({
      producerGroup: uniqueName('P'),
      namesrvAddr: cluster.namesrvAddr,
      instanceName: 'shared-name',
    });
    producers.push(b, a2);
    await b.start();
    await a2.start();
    assert.equal(clientInstances().length, before + 3);
    assert.ok(a);
  });
});

describe('recognizing an ACL refusal', () => {
  const reply = (code: number, remark: string) => createResponse(createRequest(310), code, remark);

  it('4.9: SYSTEM_ERROR carrying an AclException is AccessDeniedError with resource', () => {
    const e = accessDenied(
      reply(
        ResponseCode.SYSTEM_ERROR,
        'org.apache.rocketmq.acl.common.AclException: No default permission for topic:TopicB, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:586)',
      ),
      '127.0.0.1:10911',
      'PUB',
    );
    assert.ok(e instanceof AccessDeniedError);
    assert.equal(e.responseCode, ResponseCode.SYSTEM_ERROR);
    assert.equal(e.remark, 'No default permission for topic:TopicB');
    assert.equal(e.resource, 'topic:TopicB');
    assert.equal(e.permission, 'PUB');
  });

  it('admin refusals name the request code', () => {
    const e = accessDenied(
      reply(ResponseCode.NO_PERMISSION, 'Need admin permission for request code=17, but accessKey=ak is not'),
      undefined,
    );
    assert.equal(e?.resource, 'code=17');
    assert.equal(e?.permission, 'ADMIN');
  });

  it('5.x: NO_PERMISSION from authentication is AccessDeniedError', () => {
    const e = accessDenied(reply(ResponseCode.NO_PERMISSION, 'User:bob is not found.'), undefined);
    assert.ok(e instanceof AccessDeniedError);
    assert.equal(e.resource, undefined);
  });

  it('NO_PERMISSION for a non-writable topic and a plain SYSTEM_ERROR stay BrokerResponseError', () => {
    const forbidden = errorFromResponse(
      reply(ResponseCode.NO_PERMISSION, 'the broker[broker-a] sending message is forbidden'),
      { address: 'x:1', retriable: true },
    );
    assert.ok(forbidden instanceof BrokerResponseError);
    assert.equal(forbidden.retriable, true);
    assert.ok(
      errorFromResponse(reply(ResponseCode.SYSTEM_ERROR, 'disk full'), { address: 'x:1' }) instanceof
        BrokerResponseError,
    );
  });
});

describe('credentials and tls options', () => {
  const field = (fn: () => unknown, name: string): void =>
    assert.throws(fn, (e: unknown) => e instanceof InvalidArgumentError && e.field === name);

  it('bad values are rejected naming the field', () => {
    field(
      () => resolveClientConnection({ credentials: { accessKey: '', secretKey: 's' } }),
      'credentials.accessKey',
    );
    field(
      () => resolveClientConnection({ credentials: { accessKey: 'a', secretKey: 3 as never } }),
      'credentials.secretKey',
    );
    field(
      () =>
        resolveClientConnection({ credentials: { accessKey: 'a', secretKey: 's', secretkey: 'x' } as never }),
      'credentials.secretkey',
    );
    field(
      () => resolveClientConnection({ tls: { rejectUnauthorised: true } as never }),
      'tls.rejectUnauthorised',
    );
    field(() => resolveClientConnection({ tls: { ca: 5 as never } }), 'tls.ca');
    field(() => new Producer({ namesrvAddr: '127.0.0.1:9876', tls: 'yes' as never }), 'tls');
  });

  it('tls: true verifies (Node roots and host name); only rejectUnauthorized: false trusts any certificate', () => {
    assert.equal(resolveClientConnection({ tls: true }).tls?.rejectUnauthorized, true);
    assert.equal(resolveClientConnection({ tls: { ca: 'PEM' } }).tls?.rejectUnauthorized, true);
    assert.equal(
      resolveClientConnection({ tls: { rejectUnauthorized: false } }).tls?.rejectUnauthorized,
      false,
    );
    assert.equal(resolveClientConnection({ tls: false }).tls, undefined);
  });
});
