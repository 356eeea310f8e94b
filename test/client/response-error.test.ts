/**
 * One response → error mapping for every caller family: the same failed answer is the same
 * error class whether a producer's send, a SimpleConsumer's receive, a reply or an Admin call
 * got it. A scripted server on 127.0.0.1:0 plays NameServer (routes to itself) and broker
 * (answers every other request with the row's code and remark).
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../../src/admin/admin.js';
import { errorFromResponse } from '../../src/client/response-error.js';
import { sendReply } from '../../src/consumer/core/reply.js';
import type { ConsumerClient } from '../../src/consumer/core/client-port.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { SimpleConsumer } from '../../src/consumer/simple/simple-consumer.js';
import {
  AccessDeniedError,
  BrokerResponseError,
  RequestNotSupportedError,
  SendFailedError,
  TopicNotFoundError,
} from '../../src/errors.js';
import { Producer } from '../../src/producer/producer.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, createResponse, DEFAULT_COMMAND_DEFAULTS } from '../../src/protocol/command.js';
import { encodeTopicRouteData } from '../../src/protocol/headers/route.js';
import { PropertyKey } from '../../src/protocol/message/properties.js';
import { ConnectionPool } from '../../src/remoting/pool.js';
import { RemotingServer } from '../../src/remoting/server.js';

type ErrorClass = new (...args: never[]) => Error;

interface Row {
  name: string;
  code: number;
  remark: string;
  expect: ErrorClass;
}

const TOPIC = 'RespErrT';

const ROWS: readonly Row[] = [
  {
    name: '4.9 ACL refusal (SYSTEM_ERROR + AclException)',
    code: ResponseCode.SYSTEM_ERROR,
    remark:
      'org.apache.rocketmq.acl.common.AclException: No default permission for topic:RespErrT, org.apache.rocketmq.acl.plain.PlainPermissionManager.checkPerm(PlainPermissionManager.java:586)',
    expect: AccessDeniedError,
  },
  {
    name: '5.x ACL refusal (NO_PERMISSION)',
    code: ResponseCode.NO_PERMISSION,
    remark: 'User:bob has no permission to access RespErrT',
    expect: AccessDeniedError,
  },
  {
    name: 'TOPIC_NOT_EXIST',
    code: ResponseCode.TOPIC_NOT_EXIST,
    remark: `topic[${TOPIC}] not exist, apply first please!`,
    expect: TopicNotFoundError,
  },
  {
    name: 'NO_PERMISSION without ACL (topic not writable / readable)',
    code: ResponseCode.NO_PERMISSION,
    remark: 'the broker[b] sending message is forbidden',
    expect: BrokerResponseError,
  },
  {
    name: 'SYSTEM_ERROR without ACL',
    code: ResponseCode.SYSTEM_ERROR,
    remark: 'disk full',
    expect: BrokerResponseError,
  },
];

/** NameServer and broker in one: routes point at itself, every other request gets `answer`. */
class ScriptedCluster {
  readonly server = new RemotingServer();
  answer: { code: number; remark: string } = { code: ResponseCode.SUCCESS, remark: '' };

  async start(): Promise<void> {
    this.server.setDefaultProcessor((req) => {
      if (req.code === RequestCode.GET_ROUTEINFO_BY_TOPIC) {
        const route = encodeTopicRouteData({
          queueDatas: [{ brokerName: 'b', readQueueNums: 1, writeQueueNums: 1, perm: 6, topicSysFlag: 0 }],
          brokerDatas: [{ cluster: 'c', brokerName: 'b', brokerAddrs: { '0': this.address } }],
          filterServerTable: {},
        });
        return createResponse(req, ResponseCode.SUCCESS, undefined, undefined, route);
      }
      if (req.code === RequestCode.HEART_BEAT || req.code === RequestCode.UNREGISTER_CLIENT)
        return createResponse(req, ResponseCode.SUCCESS);
      return createResponse(req, this.answer.code, this.answer.remark);
    });
    await this.server.listen();
  }

  get address(): string {
    return this.server.address;
  }
}

/** How each caller family meets a failed response; resolves to the error it surfaced. */
type Family = (cluster: ScriptedCluster) => Promise<unknown>;

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  return assert.fail('expected a rejection');
}

const FAMILIES: Record<string, Family> = {
  async producer(cluster) {
    const producer = new Producer({
      namesrvAddr: cluster.address,
      retryTimesWhenSendFailed: 0,
      retryResponseCodes: [],
      hedgeSends: false,
    });
    await producer.start();
    try {
      const err = await rejection(producer.send({ topic: TOPIC, body: 'x' }));
      // A failure the retry list does not cover rejects as itself; a SendFailedError lists it.
      return err instanceof SendFailedError ? err.attempts[0]?.error : err;
    } finally {
      await producer.shutdown();
    }
  },
  async 'simple consumer'(cluster) {
    const consumer = new SimpleConsumer({
      namesrvAddr: cluster.address,
      consumerGroup: 'RespErrG',
      subscriptions: { [TOPIC]: '*' },
      awaitDuration: 0,
    });
    const answer = cluster.answer;
    // start() probes POP with a NOTIFICATION; let it through, then script the receive.
    cluster.answer = { code: ResponseCode.SUCCESS, remark: '' };
    await consumer.start();
    cluster.answer = answer;
    try {
      return await rejection(consumer.receive(1));
    } finally {
      await consumer.shutdown();
    }
  },
  async reply(cluster) {
    const pool = new ConnectionPool();
    const client = {
      clientId: '127.0.0.1@reply',
      commandDefaults: DEFAULT_COMMAND_DEFAULTS,
      request: (address: string, cmd: Parameters<ConnectionPool['request']>[1], timeoutMs: number) =>
        pool.request(address, cmd, timeoutMs),
      masterAddress: () => cluster.address,
    } as unknown as ConsumerClient;
    const request = {
      queue: { topic: TOPIC, brokerName: 'b', queueId: 0 },
      systemProperties: {
        [PropertyKey.CLUSTER]: 'c',
        [PropertyKey.CORRELATION_ID]: 'corr-1',
        [PropertyKey.REPLY_TO_CLIENT]: '127.0.0.1@requester',
      },
    } as unknown as ConsumerMessage;
    try {
      return await rejection(sendReply(client, { group: 'RespErrG', timeoutMs: 3000 }, request, 'pong'));
    } finally {
      await pool.close();
    }
  },
  async 'admin (broker request)'(cluster) {
    const admin = new Admin({ namesrvAddr: cluster.address });
    try {
      return await rejection(admin.topicStats(TOPIC));
    } finally {
      await admin.close();
    }
  },
  async 'admin (NameServer request)'(cluster) {
    const admin = new Admin({ namesrvAddr: cluster.address });
    try {
      return await rejection(admin.clusterInfo());
    } finally {
      await admin.close();
    }
  },
};

describe('a failed response is the same error class for every caller', () => {
  const cluster = new ScriptedCluster();
  before(() => cluster.start());
  after(() => cluster.server.close());

  for (const row of ROWS) {
    for (const [family, run] of Object.entries(FAMILIES)) {
      it(`${row.name} → ${row.expect.name} (${family})`, async () => {
        cluster.answer = { code: row.code, remark: row.remark };
        const err = await run(cluster);
        assert.ok(err instanceof row.expect, `${family}: ${String(err)}`);
        if (err instanceof AccessDeniedError || err instanceof BrokerResponseError)
          assert.equal(err.responseCode, row.code);
        if (err instanceof TopicNotFoundError) assert.equal(err.topic, TOPIC);
      });
    }
  }
});

describe('errorFromResponse', () => {
  const reply = (code: number, remark?: string) =>
    createResponse(createRequest(RequestCode.SEND_MESSAGE_V2), code, remark);

  it('names the topic of a TOPIC_NOT_EXIST from the caller, else from the broker or NameServer remark', () => {
    const byCaller = errorFromResponse(reply(ResponseCode.TOPIC_NOT_EXIST, 'whatever'), { topic: 'Mine' });
    assert.ok(byCaller instanceof TopicNotFoundError);
    assert.equal(byCaller.topic, 'Mine');
    assert.equal(byCaller.responseCode, ResponseCode.TOPIC_NOT_EXIST);
    const namesrv = errorFromResponse(
      reply(ResponseCode.TOPIC_NOT_EXIST, 'No topic route info in name server for the topic: NsT'),
      { address: 'ns:9876' },
    );
    assert.ok(namesrv instanceof TopicNotFoundError);
    assert.equal(namesrv.topic, 'NsT');
    assert.equal(namesrv.address, 'ns:9876');
  });

  it('REQUEST_CODE_NOT_SUPPORTED is RequestNotSupportedError when the request is named, else BrokerResponseError', () => {
    const named = errorFromResponse(reply(ResponseCode.REQUEST_CODE_NOT_SUPPORTED), {
      address: 'b:1',
      requestCode: RequestCode.SEND_MESSAGE_V2,
    });
    assert.ok(named instanceof RequestNotSupportedError);
    assert.equal(named.requestCode, RequestCode.SEND_MESSAGE_V2);
    assert.ok(
      errorFromResponse(reply(ResponseCode.REQUEST_CODE_NOT_SUPPORTED)) instanceof BrokerResponseError,
    );
  });

  it('carries retriable and cause to the error; an ACL refusal is never retriable', () => {
    const cause = new Error('why');
    const busy = errorFromResponse(reply(ResponseCode.SYSTEM_BUSY, 'busy'), { retriable: true, cause });
    assert.equal(busy.retriable, true);
    assert.equal(busy.cause, cause);
    const denied = errorFromResponse(reply(ResponseCode.NO_PERMISSION, 'No permission for topic:T'), {
      retriable: true,
      permission: 'PUB',
    });
    assert.ok(denied instanceof AccessDeniedError);
    assert.equal(denied.retriable, false);
    assert.equal(denied.permission, 'PUB');
  });
});
