import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';
import { jsonHeaderText } from '../../src/protocol/header-json.js';
import * as h from '../../src/protocol/headers/index.js';
import {
  GetRouteInfoByTopic,
  requestDeclaration,
  PullMessage,
  PullMessageResponse,
  PullSysFlag,
  QueryMessage,
  RegisterBroker,
  SendMessage,
  SendMessageV2,
  UpdateAndCreateTopic,
  ConsumerSendMsgBack,
  EndTransaction,
  decodeAnySendMessageRequestHeader,
  decodeRegisterBrokerBody,
  decodeSendMessageResponseHeader,
  encodeClusterInfo,
  encodeConsumerListBody,
  encodeHeartbeatData,
  encodeRegisterBrokerBody,
  encodeSendMessageResponseHeader,
  encodeTopicRouteData,
  fromV2,
  javaStringHashCode,
  masterAddress,
  parseClusterInfo,
  parseConsumerListBody,
  parseHeartbeatData,
  parseTopicRouteData,
  buildPullSysFlag,
  toV2,
  topicConfig,
  type HeartbeatData,
  type RegisterBrokerBody,
  type SendMessageRequestHeader,
} from '../../src/protocol/headers/index.js';
import { bodyCrc } from '../../src/protocol/message/crc32.js';

const UNIQ = '7F0000010001000000000000000000AA';
const sendHeader: SendMessageRequestHeader = {
  producerGroup: 'PG',
  topic: 'T',
  defaultTopic: 'TBW102',
  defaultTopicQueueNums: 4,
  queueId: 0,
  sysFlag: 0,
  bornTimestamp: 1700000000000,
  flag: 0,
  properties: `UNIQ_KEY\u0001${UNIQ}\u0002WAIT\u0001true\u0002TAGS\u0001TagA`,
  reconsumeTimes: 0,
  unitMode: false,
  batch: false,
  bname: 'broker-a',
};

describe('send headers (§3.1, §3.2)', () => {
  it('reproduces the verified V2 JSON header', () => {
    const cmd = createRequest(RequestCode.SEND_MESSAGE_V2, toV2(sendHeader));
    cmd.opaque = 2;
    assert.equal(
      jsonHeaderText(cmd),
      `{"code":310,"extFields":{"a":"PG","b":"T","c":"TBW102","d":"4","e":"0","f":"0","g":"1700000000000","h":"0","i":"UNIQ_KEY\\u0001${UNIQ}\\u0002WAIT\\u0001true\\u0002TAGS\\u0001TagA","j":"0","k":"false","m":"false","n":"broker-a"},"flag":0,"language":"JAVA","opaque":2,"serializeTypeCurrentRPC":"JSON","version":407}`,
    );
  });

  it('V2 carries keys a..n and no bname; V1 carries long names', () => {
    const v2 = toV2(sendHeader);
    assert.deepEqual(Object.keys(v2), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'm', 'n']);
    const v1 = SendMessage.encode(sendHeader);
    assert.equal(v1.producerGroup, 'PG');
    assert.equal(v1.bname, 'broker-a');
    assert.equal(v1.unitMode, 'false');
  });

  it('always sends k and m (Java 4.9.7 primitives), l only when set', () => {
    const { unitMode: _u, batch: _b, reconsumeTimes: _r, ...minimal } = sendHeader;
    const v2 = toV2(minimal);
    assert.equal(v2.k, 'false');
    assert.equal(v2.m, 'false');
    assert.equal(v2.l, undefined);
    assert.equal(toV2({ ...minimal, maxReconsumeTimes: 16, batch: true }).l, '16');
  });

  it('round trips V1 and V2 and picks the codec by request code', () => {
    const withMax = { ...sendHeader, maxReconsumeTimes: 3, batch: true };
    assert.deepEqual(fromV2(toV2(withMax)), withMax);
    assert.deepEqual(SendMessage.decode(SendMessage.encode(withMax)), withMax);
    assert.deepEqual(decodeAnySendMessageRequestHeader(320, toV2(withMax)), withMax);
    assert.deepEqual(decodeAnySendMessageRequestHeader(10, SendMessage.encode(withMax)), withMax);
    assert.throws(() => decodeAnySendMessageRequestHeader(11, {}), ProtocolError);
  });

  it('rejects missing required fields and malformed numbers', () => {
    const v2 = toV2(sendHeader);
    const { a: _a, ...noGroup } = v2;
    assert.throws(() => fromV2(noGroup), /missing required field a/);
    assert.throws(() => fromV2({ ...v2, e: 'one' }), ProtocolError);
    assert.throws(() => fromV2({ ...v2, e: '1.5' }), ProtocolError);
    assert.throws(() => fromV2({ ...v2, e: '99999999999' }), ProtocolError); // not an int32
    assert.throws(() => fromV2({ ...v2, g: '1e3' }), ProtocolError);
    assert.throws(() => fromV2({ ...v2, g: '' }), ProtocolError);
    assert.throws(() => fromV2(undefined), ProtocolError);
    assert.equal(SendMessageV2.code, 310);
  });

  it('send response header: verified §1.3 extFields decode, encode round trips', () => {
    const ext = {
      queueId: '1',
      TRACE_ON: 'true',
      MSG_REGION: 'DefaultRegion',
      msgId: '7F00000100002A9F00000000000004D2',
      queueOffset: '5',
    };
    const h = decodeSendMessageResponseHeader(ext);
    assert.deepEqual(h, {
      msgId: ext.msgId,
      queueId: 1,
      queueOffset: 5,
      regionId: 'DefaultRegion',
      traceOn: true,
    });
    assert.deepEqual(encodeSendMessageResponseHeader(h), {
      msgId: ext.msgId,
      queueId: '1',
      queueOffset: '5',
      MSG_REGION: 'DefaultRegion',
      TRACE_ON: 'true',
    });
    assert.throws(() => decodeSendMessageResponseHeader({ queueId: '1', queueOffset: '5' }), ProtocolError);
  });
});

const ROUTE_QUOTED =
  '{"brokerDatas":[{"brokerAddrs":{"0":"127.0.0.1:10911","1":"127.0.0.1:10921"},"brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},"queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,"topicSysFlag":0,"writeQueueNums":4}]}';
const ROUTE_UNQUOTED = ROUTE_QUOTED.replace('"0":', '0:').replace('"1":', '1:');

describe('route (§7.2)', () => {
  it('parses both the quoted and the unquoted form to the same data', () => {
    const a = parseTopicRouteData(Buffer.from(ROUTE_QUOTED));
    const b = parseTopicRouteData(ROUTE_UNQUOTED);
    assert.deepEqual(a, b);
    assert.equal(masterAddress(a.brokerDatas[0]!), '127.0.0.1:10911');
    assert.deepEqual(a.queueDatas[0], {
      brokerName: 'broker-a',
      perm: 6,
      readQueueNums: 4,
      topicSysFlag: 0,
      writeQueueNums: 4,
    });
  });

  it('encodes the verified JSON byte for byte, sorting broker ids numerically', () => {
    const route = parseTopicRouteData(ROUTE_QUOTED);
    assert.equal(encodeTopicRouteData(route).toString(), ROUTE_QUOTED);
    route.brokerDatas[0]!.brokerAddrs = { '10': 'x:1', '2': 'y:2', '0': 'z:3' };
    assert.match(encodeTopicRouteData(route).toString(), /\{"0":"z:3","2":"y:2","10":"x:1"\}/);
  });

  it('keeps orderTopicConf and 5.x fields, ignores unknown ones', () => {
    const text = ROUTE_QUOTED.replace(
      '"filterServerTable":{}',
      '"filterServerTable":{},"orderTopicConf":"broker-a:4","unknown":1',
    ).replace(
      '"cluster":"DefaultCluster"',
      '"cluster":"DefaultCluster","enableActingMaster":false,"zoneName":"z"',
    );
    const route = parseTopicRouteData(text);
    assert.equal(route.orderTopicConf, 'broker-a:4');
    assert.equal(route.brokerDatas[0]!.zoneName, 'z');
    assert.equal(encodeTopicRouteData(route).toString(), text.replace(',"unknown":1', ''));
  });

  it('rejects malformed bodies', () => {
    for (const bad of [
      '[]',
      '{"queueDatas":{}}',
      '{"brokerDatas":[{"brokerAddrs":{}}]}',
      '{"queueDatas":[{"perm":6}]}',
      'nope',
    ]) {
      assert.throws(() => parseTopicRouteData(bad), ProtocolError, bad);
    }
  });

  it('request header', () => {
    assert.deepEqual(GetRouteInfoByTopic.encode({ topic: 'TopicTest' }), { topic: 'TopicTest' });
    assert.deepEqual(GetRouteInfoByTopic.decode({ topic: 'x', acceptStandardJsonOnly: 'true' }), {
      topic: 'x',
      acceptStandardJsonOnly: true,
    });
  });
});

const REGISTER_BODY =
  '{"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":3,"timestamp":1700000000000},"topicConfigTable":{"TopicTest":{"order":false,"perm":6,"readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest","topicSysFlag":0,"writeQueueNums":4}}}}';

describe('register broker (§7.1)', () => {
  const body: RegisterBrokerBody = {
    filterServerList: [],
    topicConfigSerializeWrapper: {
      dataVersion: { counter: 3, timestamp: 1700000000000 },
      topicConfigTable: { TopicTest: topicConfig('TopicTest', { readQueueNums: 4, writeQueueNums: 4 }) },
    },
  };

  it('encodes the verified body byte for byte and decodes it back', () => {
    const bytes = encodeRegisterBrokerBody(body);
    assert.equal(bytes.toString(), REGISTER_BODY);
    assert.deepEqual(decodeRegisterBrokerBody(Buffer.from(REGISTER_BODY)), body);
  });

  it('the verified header round trips and its bodyCrc32 matches the verified body', () => {
    const ext = {
      brokerId: '0',
      bodyCrc32: '416932168',
      clusterName: 'DefaultCluster',
      brokerAddr: '127.0.0.1:10911',
      haServerAddr: '127.0.0.1:10912',
      compressed: 'false',
      brokerName: 'broker-a',
    };
    const h = RegisterBroker.decode(ext);
    assert.equal(h.brokerId, 0);
    assert.equal(h.compressed, false);
    assert.deepEqual(RegisterBroker.encode(h), {
      brokerName: 'broker-a',
      brokerAddr: '127.0.0.1:10911',
      clusterName: 'DefaultCluster',
      haServerAddr: '127.0.0.1:10912',
      brokerId: '0',
      compressed: 'false',
      bodyCrc32: '416932168',
    });
    assert.equal(bodyCrc(Buffer.from(REGISTER_BODY)), 416932168);
  });

  it('compressed bodies round trip; bare pre-V3_0_11 wrappers are understood', () => {
    const withAttrs = structuredClone(body);
    withAttrs.topicConfigSerializeWrapper.topicConfigTable.TopicTest!.attributes = {
      'queue.type': 'BatchCQ',
    };
    withAttrs.filterServerList = ['127.0.0.1:1'];
    const compressed = encodeRegisterBrokerBody(withAttrs, true);
    assert.deepEqual(decodeRegisterBrokerBody(compressed, true), withAttrs);
    const bare = JSON.stringify(JSON.parse(REGISTER_BODY).topicConfigSerializeWrapper);
    assert.deepEqual(decodeRegisterBrokerBody(Buffer.from(bare)), body);
    assert.throws(() => decodeRegisterBrokerBody(Buffer.from('garbage'), true), ProtocolError);
    assert.throws(() => decodeRegisterBrokerBody(compressed.subarray(0, 10), true), ProtocolError);
  });

  it('cluster info: unquoted Java form parses, our form round trips', () => {
    const javaText =
      '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"127.0.0.1:10911"},"brokerName":"broker-a","cluster":"DefaultCluster"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}';
    const info = parseClusterInfo(javaText);
    assert.equal(info.brokerAddrTable['broker-a']!.brokerAddrs['0'], '127.0.0.1:10911');
    assert.deepEqual(info.clusterAddrTable, { DefaultCluster: ['broker-a'] });
    assert.equal(encodeClusterInfo(info).toString(), javaText.replace('{0:', '{"0":'));
    assert.deepEqual(parseClusterInfo(encodeClusterInfo(info)), info);
  });
});

describe('heartbeat (§8)', () => {
  const producerOnly =
    '{"clientID":"127.0.0.1@12345#987654321","consumerDataSet":[],"producerDataSet":[{"groupName":"CLIENT_INNER_PRODUCER"},{"groupName":"PG"}]}';
  const consumerEntry =
    '{"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY","groupName":"CG","messageModel":"CLUSTERING","subscriptionDataSet":[{"classFilterMode":false,"codeSet":[2598919],"expressionType":"TAG","subString":"TagA || TagB","subVersion":1700000000000,"tagsSet":["TagA"],"topic":"T"}],"unitMode":false}';

  it('encodes the verified producer-only body byte for byte and parses it back', () => {
    const data: HeartbeatData = {
      clientID: '127.0.0.1@12345#987654321',
      producerDataSet: [{ groupName: 'CLIENT_INNER_PRODUCER' }, { groupName: 'PG' }],
      consumerDataSet: [],
    };
    assert.equal(encodeHeartbeatData(data).toString(), producerOnly);
    assert.deepEqual(parseHeartbeatData(Buffer.from(producerOnly)), data);
  });

  it('encodes the verified consumer entry byte for byte', () => {
    const data: HeartbeatData = {
      clientID: 'c',
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: 'CG',
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          unitMode: false,
          subscriptionDataSet: [
            {
              topic: 'T',
              subString: 'TagA || TagB',
              tagsSet: ['TagA'],
              codeSet: [javaStringHashCode('TagA')],
              subVersion: 1700000000000,
              expressionType: 'TAG',
              classFilterMode: false,
            },
          ],
        },
      ],
    };
    const text = encodeHeartbeatData(data).toString();
    assert.equal(text, `{"clientID":"c","consumerDataSet":[${consumerEntry}],"producerDataSet":[]}`);
    assert.deepEqual(parseHeartbeatData(text), data);
  });

  it('Java String.hashCode', () => {
    assert.equal(javaStringHashCode('TagA'), 2598919);
    assert.equal(javaStringHashCode(''), 0);
    assert.equal(javaStringHashCode('hello'), 99162322);
    assert.equal(javaStringHashCode('polygenelubricants'), -2147483648); // famous Integer.MIN_VALUE hash
  });

  it('rejects malformed bodies', () => {
    assert.throws(() => parseHeartbeatData('{"producerDataSet":[]}'), ProtocolError);
    assert.throws(() => parseHeartbeatData('{"clientID":"x","producerDataSet":[1]}'), ProtocolError);
  });
});

describe('other request declarations', () => {
  it('pull request/response round trip and sysFlag', () => {
    const sysFlag = buildPullSysFlag(true, true, true, false);
    assert.equal(
      sysFlag,
      PullSysFlag.FLAG_COMMIT_OFFSET | PullSysFlag.FLAG_SUSPEND | PullSysFlag.FLAG_SUBSCRIPTION,
    );
    const h = {
      consumerGroup: 'CG',
      topic: 'T',
      queueId: 3,
      queueOffset: 2 ** 40,
      maxMsgNums: 32,
      sysFlag,
      commitOffset: 10,
      suspendTimeoutMillis: 15000,
      subscription: '*',
      subVersion: 1700000000000,
      expressionType: 'TAG',
    };
    assert.deepEqual(PullMessage.decode(PullMessage.encode(h)), h);
    assert.equal(PullMessage.code, RequestCode.PULL_MESSAGE);
    const r = { suggestWhichBrokerId: 0, nextBeginOffset: 5, minOffset: 0, maxOffset: 5 };
    assert.deepEqual(PullMessageResponse.decode(PullMessageResponse.encode(r)), r);
    assert.throws(() => PullMessageResponse.decode({ nextBeginOffset: '5' }), ProtocolError);
  });

  it('query message puts the unique-key flag under _UNIQUE_KEY_QUERY', () => {
    const ext = QueryMessage.encode({
      topic: 'T',
      key: 'k',
      maxNum: 32,
      beginTimestamp: 0,
      endTimestamp: 1,
      uniqueKeyQuery: true,
    });
    assert.equal(ext._UNIQUE_KEY_QUERY, 'true');
    assert.equal(QueryMessage.decode(ext).uniqueKeyQuery, true);
  });

  it('create topic, send back, end transaction default their Java primitives', () => {
    const t = UpdateAndCreateTopic.encode({
      topic: 'T',
      defaultTopic: 'TBW102',
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
    });
    assert.equal(t.order, 'false');
    assert.equal(ConsumerSendMsgBack.encode({ offset: 1, group: 'g', delayLevel: 0 }).unitMode, 'false');
    const e = EndTransaction.encode({
      producerGroup: 'p',
      tranStateTableOffset: 1,
      commitLogOffset: 2,
      commitOrRollback: 8,
      msgId: 'm',
    });
    assert.equal(e.fromTransactionCheck, 'false');
    assert.equal(EndTransaction.decode(e).commitOrRollback, 8);
  });

  it('consumer list body', () => {
    assert.equal(encodeConsumerListBody(['a', 'b']).toString(), '{"consumerIdList":["a","b"]}');
    assert.deepEqual(parseConsumerListBody(Buffer.from('{"consumerIdList":["x"]}')), ['x']);
    assert.throws(() => parseConsumerListBody('{"consumerIdList":[1]}'), ProtocolError);
  });
});

describe('namesrv extras and the declaration registry', () => {
  it('topic list and KV table bodies round trip', () => {
    const list = { brokerAddr: '127.0.0.1:10911', topicList: ['a', 'b'] };
    assert.equal(
      h.encodeTopicList(list).toString(),
      '{"brokerAddr":"127.0.0.1:10911","topicList":["a","b"]}',
    );
    assert.deepEqual(h.parseTopicList(h.encodeTopicList(list)), list);
    assert.equal(h.encodeKVTable({ T: 'broker-a:4' }).toString(), '{"table":{"T":"broker-a:4"}}');
    assert.deepEqual(h.parseKVTable('{"table":{"T":"broker-a:4"}}'), { T: 'broker-a:4' });
  });

  it('finds declarations by code and decodes with them', () => {
    assert.equal(requestDeclaration(310)?.name, 'SEND_MESSAGE_V2');
    assert.equal(requestDeclaration(34)?.name, 'HEART_BEAT');
    assert.deepEqual(requestDeclaration(34)?.decode(undefined), {});
    assert.equal(requestDeclaration(105)?.decode({ topic: 'T' }).topic, 'T');
    assert.equal(requestDeclaration(424242), undefined);
  });

  it('numbers: Java-style signs accepted, fractions and garbage rejected', () => {
    assert.equal(GetRouteInfoByTopic.decode({ topic: 'x' }).topic, 'x');
    assert.equal(
      PullMessageResponse.decode({
        suggestWhichBrokerId: '+0',
        nextBeginOffset: '-1',
        minOffset: '0',
        maxOffset: '0',
      }).nextBeginOffset,
      -1,
    );
    for (const bad of ['0x10', '1_000', 'NaN', 'Infinity', '9007199254740993']) {
      assert.throws(
        () =>
          PullMessageResponse.decode({
            suggestWhichBrokerId: '0',
            nextBeginOffset: bad,
            minOffset: '0',
            maxOffset: '0',
          }),
        ProtocolError,
        bad,
      );
    }
  });
});

describe('server-side decoding and the declarations the embedded broker added', () => {
  it('withOptionalFields relaxes only the named fields and keeps code, name and encoding', () => {
    const Relaxed = h.withOptionalFields(PullMessage, 'commitOffset', 'suspendTimeoutMillis', 'subVersion');
    assert.equal(Relaxed.code, PullMessage.code);
    assert.equal(Relaxed.name, 'PULL_MESSAGE');
    const ext = {
      consumerGroup: 'g',
      topic: 'T',
      queueId: '1',
      queueOffset: '5',
      maxMsgNums: '32',
      sysFlag: '2',
    };
    const decoded = Relaxed.decode(ext);
    assert.equal(decoded.queueOffset, 5);
    assert.equal(decoded.commitOffset, undefined);
    assert.throws(() => PullMessage.decode(ext), ProtocolError);
    assert.throws(
      () => Relaxed.decode({ ...ext, queueOffset: undefined as unknown as string }),
      ProtocolError,
    );
    const full = { ...decoded, commitOffset: 0, suspendTimeoutMillis: 0, subVersion: 0 };
    assert.deepEqual(Relaxed.encode(full), PullMessage.encode(full));
    assert.equal(Relaxed.encode(decoded).commitOffset, undefined);
  });

  it('decodeRequestHeader reads empty values as absent and names a missing field as Java does', () => {
    const ext = { topic: '', queueId: '0' };
    assert.throws(
      () => h.decodeRequestHeader(h.GetMaxOffset, ext),
      (err: unknown) => err instanceof ProtocolError && err.message === 'the custom field <topic> is null',
    );
    assert.deepEqual(h.decodeRequestHeader(h.GetMaxOffset, { topic: 'T', queueId: '3', bname: '' }), {
      topic: 'T',
      queueId: 3,
    });
    assert.throws(() => h.decodeRequestHeader(h.GetMaxOffset, { topic: 'T', queueId: 'x' }), /not a number/);
    assert.throws(() => h.decodeRequestHeader(h.GetMaxOffset, undefined), /<topic> is null/);
  });

  it('lock batch bodies: alphabetical fields like fastjson, lenient group and client id', () => {
    const body = {
      consumerGroup: 'G',
      clientId: 'C@1',
      mqSet: [{ topic: 'T', brokerName: 'broker-a', queueId: 2 }],
    };
    assert.equal(
      h.encodeLockBatchBody(body).toString(),
      '{"clientId":"C@1","consumerGroup":"G","mqSet":[{"brokerName":"broker-a","queueId":2,"topic":"T"}]}',
    );
    assert.deepEqual(h.parseLockBatchBody(h.encodeLockBatchBody(body)), body);
    assert.deepEqual(h.parseLockBatchBody('{"mqSet":[]}'), { consumerGroup: '', clientId: '', mqSet: [] });
    assert.throws(() => h.parseLockBatchBody('[1]'), ProtocolError);
    const locked = h.encodeLockBatchResponseBody(body.mqSet);
    assert.equal(locked.toString(), '{"lockOKMQSet":[{"brokerName":"broker-a","queueId":2,"topic":"T"}]}');
    assert.deepEqual(h.parseLockBatchResponseBody(locked), body.mqSet);
  });

  it('registers the broker and namesrv codes the embedded servers answer', () => {
    const expected: Array<[number, string]> = [
      [RequestCode.GET_KVLIST_BY_NAMESPACE, 'GET_KVLIST_BY_NAMESPACE'],
      [RequestCode.DELETE_TOPIC_IN_BROKER, 'DELETE_TOPIC_IN_BROKER'],
      [RequestCode.GET_ALL_TOPIC_CONFIG, 'GET_ALL_TOPIC_CONFIG'],
      [RequestCode.GET_BROKER_RUNTIME_INFO, 'GET_BROKER_RUNTIME_INFO'],
      [RequestCode.GET_EARLIEST_MSG_STORETIME, 'GET_EARLIEST_MSG_STORETIME'],
      [RequestCode.LOCK_BATCH_MQ, 'LOCK_BATCH_MQ'],
      [RequestCode.UNLOCK_BATCH_MQ, 'UNLOCK_BATCH_MQ'],
      [RequestCode.CHECK_CLIENT_CONFIG, 'CHECK_CLIENT_CONFIG'],
    ];
    for (const [code, name] of expected) assert.equal(requestDeclaration(code)?.name, name);
    assert.deepEqual(h.GetEarliestMsgStoretime.decode({ topic: 'T', queueId: '1' }), {
      topic: 'T',
      queueId: 1,
    });
    assert.deepEqual(h.GetEarliestMsgStoretimeResponse.encode({ timestamp: 17 }), { timestamp: '17' });
    assert.throws(() => h.DeleteTopicInBroker.decode({}), ProtocolError);
  });
});
