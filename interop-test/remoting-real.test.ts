/**
 * Our remoting layer (ConnectionPool + protocol codecs) against a real Apache RocketMQ NameServer
 * and brokers, for every interop version: route lookups, cluster info with fastjson's unquoted
 * integer keys, TOPIC_NOT_EXIST, and SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE frames built by our
 * codec that a Java push consumer then reads back intact.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../src/protocol/codes.js';
import { createRequest } from '../src/protocol/command.js';
import { parseTopicRouteData, GetRouteInfoByTopic } from '../src/protocol/headers/route.js';
import { parseClusterInfo } from '../src/protocol/headers/register.js';
import {
  SendBatchMessage,
  SendMessageV2,
  decodeSendMessageResponseHeader,
} from '../src/protocol/headers/send.js';
import { encodeBatch } from '../src/protocol/message/batch.js';
import { ZLIB_COMPRESSED_SYSFLAG, compressBody } from '../src/protocol/message/compression.js';
import { UniqIdGenerator, decodeOffsetMsgId } from '../src/protocol/message/message-id.js';
import { encodeProperties } from '../src/protocol/message/properties.js';
import { ConnectionPool } from '../src/remoting/pool.js';
import { detBody, detKeys, detTags, detUserProperties } from './deterministic.js';
import { INTEROP_VERSIONS, describeConsume, type ConsumeResult, consumeWithJava } from './java.js';
import { RealCluster } from './real-cluster.js';

const TIMEOUT_MS = 5000;

describe('our remoting layer against real RocketMQ', { concurrency: 1 }, () => {
  for (const { version, major } of INTEROP_VERSIONS) {
    describe(`RocketMQ ${version}`, { timeout: 600_000, concurrency: 1 }, () => {
      let cluster: RealCluster;
      let pool: ConnectionPool;
      const ids = new UniqIdGenerator();
      const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;

      before(async () => {
        cluster = await RealCluster.start({ version });
        pool = new ConnectionPool({ connectTimeoutMs: 3000 });
      });

      after(async () => {
        await pool?.close();
        await cluster?.stop();
      });

      function routeRequest(topic: string, version?: number) {
        const cmd = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoByTopic.encode({ topic }));
        if (version !== undefined) cmd.version = version;
        return pool.request(cluster.namesrvAddr, cmd, TIMEOUT_MS);
      }

      /** Properties of deterministic message `seq` the way a Java producer sets them. */
      function messageProperties(seq: number, size: number): { uniq: string; props: string } {
        const uniq = ids.next();
        const props = encodeProperties({
          ...detUserProperties(seq, size),
          KEYS: detKeys(seq),
          TAGS: detTags(seq),
          WAIT: 'true',
          UNIQ_KEY: uniq,
        });
        return { uniq, props };
      }

      async function sendV2(brokerName: string, topic: string, seq: number, size = 0, queueId = seq % 4) {
        const broker = cluster.broker(brokerName);
        const { uniq, props } = messageProperties(seq, size);
        let body: Buffer = detBody(seq, size);
        let sysFlag = 0;
        if (body.length >= 4096) {
          body = compressBody(body, 5);
          sysFlag = ZLIB_COMPRESSED_SYSFLAG;
        }
        const header = SendMessageV2.encode({
          producerGroup: `interop_raw_pg_${run}`,
          topic,
          defaultTopic: 'TBW102',
          defaultTopicQueueNums: 4,
          queueId,
          sysFlag,
          bornTimestamp: Date.now(),
          flag: 0,
          properties: props,
          reconsumeTimes: 0,
          unitMode: false,
          batch: false,
          bname: brokerName,
        });
        const res = await pool.request(
          broker.addr,
          createRequest(RequestCode.SEND_MESSAGE_V2, header, body),
          TIMEOUT_MS,
        );
        return { res, uniq, broker };
      }

      function consume(topic: string, expect: number, extra: string[] = []): Promise<ConsumeResult> {
        return consumeWithJava(version, cluster.namesrvAddr, topic, expect, 60000, extra);
      }

      it('GET_ROUTEINFO_BY_TOPIC for TBW102 lists both brokers with quoted keys', async () => {
        const res = await routeRequest('TBW102');
        assert.equal(res.code, ResponseCode.SUCCESS, res.remark);
        assert.ok(res.body !== undefined);
        const text = Buffer.from(res.body).toString('utf8');
        assert.match(text, /"brokerAddrs":\{"0":/, 'version >= 401 gets quoted integer keys');
        const route = parseTopicRouteData(res.body);
        const names = route.brokerDatas.map((b) => b.brokerName).sort();
        assert.deepEqual(names, ['broker-a', 'broker-b']);
        for (const bd of route.brokerDatas) {
          assert.equal(bd.cluster, 'DefaultCluster');
          assert.equal(bd.brokerAddrs['0'], cluster.broker(bd.brokerName).addr);
        }
        assert.equal(route.queueDatas.length, 2);
        for (const qd of route.queueDatas) {
          assert.equal(qd.perm, 7, 'TBW102 is RW + inherit');
          assert.equal(qd.writeQueueNums, 8, 'broker defaultTopicQueueNums');
        }
      });

      it('a version-400 route request gets unquoted integer keys that still parse', async () => {
        const res = await routeRequest('TBW102', 400);
        assert.equal(res.code, ResponseCode.SUCCESS, res.remark);
        assert.ok(res.body !== undefined);
        const text = Buffer.from(res.body).toString('utf8');
        assert.match(
          text,
          /"brokerAddrs":\{0:"127\.0\.0\.1:\d+"/,
          `fastjson default output: ${text.slice(0, 200)}`,
        );
        const route = parseTopicRouteData(res.body);
        assert.deepEqual(
          route.brokerDatas.map((b) => b.brokerAddrs['0']).sort(),
          cluster.brokers.map((b) => b.addr).sort(),
        );
      });

      it('GET_BROKER_CLUSTER_INFO keeps unquoted integer keys and parses', async () => {
        const res = await pool.request(
          cluster.namesrvAddr,
          createRequest(RequestCode.GET_BROKER_CLUSTER_INFO),
          TIMEOUT_MS,
        );
        assert.equal(res.code, ResponseCode.SUCCESS, res.remark);
        assert.ok(res.body !== undefined);
        assert.match(Buffer.from(res.body).toString('utf8'), /\{0:"127\.0\.0\.1:\d+"\}/);
        const info = parseClusterInfo(res.body);
        assert.deepEqual([...(info.clusterAddrTable.DefaultCluster ?? [])].sort(), ['broker-a', 'broker-b']);
        for (const b of cluster.brokers) assert.equal(info.brokerAddrTable[b.name]?.brokerAddrs['0'], b.addr);
      });

      it('a topic nobody created answers TOPIC_NOT_EXIST (17) with the Java remark', async () => {
        const res = await routeRequest(`interop_missing_${run}`);
        assert.equal(res.code, ResponseCode.TOPIC_NOT_EXIST);
        assert.match(res.remark ?? '', /No topic route info in name server for the topic: interop_missing_/);
        assert.equal(res.body, undefined);
      });

      it('SEND_MESSAGE_V2 frames from our codec are stored and a Java consumer reads every field back', async () => {
        const topic = `interop_raw_${run}`;
        const sent: string[] = [];
        for (let seq = 0; seq < 8; seq++) {
          const { res, uniq, broker } = await sendV2('broker-a', topic, seq);
          assert.equal(res.code, ResponseCode.SUCCESS, `seq ${seq}: ${res.code} ${res.remark ?? ''}`);
          const h = decodeSendMessageResponseHeader(res.extFields);
          assert.equal(h.queueId, seq % 4);
          assert.equal(h.queueOffset, Math.floor(seq / 4), 'consecutive offsets per queue');
          const offsetId = decodeOffsetMsgId(h.msgId);
          assert.equal(`${offsetId.host}:${offsetId.port}`, broker.addr);
          assert.equal(res.extFields?.MSG_REGION, 'DefaultRegion');
          sent.push(uniq);
        }
        const r = await consume(topic, 8);
        assert.equal(r.received, 8, describeConsume(r));
        assert.deepEqual(r.missing, []);
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        assert.deepEqual(r.unexpected, []);
        for (let seq = 0; seq < 8; seq++)
          assert.equal(r.ids[String(seq)], sent[seq], `UNIQ_KEY of seq ${seq}`);
        const first = r.messages[0];
        assert.ok(first !== undefined);
        assert.equal(first.props.CLUSTER, 'DefaultCluster', 'the broker adds CLUSTER');
        // Observed: 4.9.7 strips WAIT from single messages before storing them; 5.5.0 keeps it.
        assert.equal(
          first.props.WAIT,
          major === 4 ? undefined : 'true',
          'WAIT as stored by this broker version',
        );
        assert.equal(first.brokerName, 'broker-a');
      });

      it('a zlib-compressed body (>= 4 KiB) sent with our sysFlag is inflated by the Java consumer', async () => {
        const topic = `interop_rawz_${run}`;
        for (let seq = 0; seq < 3; seq++) {
          const { res } = await sendV2('broker-b', topic, seq, 6000);
          assert.equal(res.code, ResponseCode.SUCCESS, res.remark);
        }
        const r = await consume(topic, 3, ['--size', '6000']);
        assert.equal(r.received, 3, describeConsume(r));
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        for (const m of r.messages) {
          assert.equal(m.bodyLen, 6000);
          assert.equal(m.brokerName, 'broker-b');
        }
      });

      it('SEND_BATCH_MESSAGE with our batch encoding stores each message separately', async () => {
        const topic = `interop_rawb_${run}`;
        const uniqs: string[] = [];
        const entries = [];
        for (let seq = 0; seq < 5; seq++) {
          const { uniq, props } = messageProperties(seq, 0);
          uniqs.push(uniq);
          entries.push({ body: detBody(seq), flag: 0, properties: props });
        }
        const header = SendBatchMessage.encode({
          producerGroup: `interop_raw_pg_${run}`,
          topic,
          defaultTopic: 'TBW102',
          defaultTopicQueueNums: 4,
          queueId: 1,
          sysFlag: 0,
          bornTimestamp: Date.now(),
          flag: 0,
          properties: encodeProperties({ WAIT: 'true' }),
          reconsumeTimes: 0,
          unitMode: false,
          batch: true,
          bname: 'broker-a',
        });
        const res = await pool.request(
          cluster.broker('broker-a').addr,
          createRequest(RequestCode.SEND_BATCH_MESSAGE, header, encodeBatch(entries)),
          TIMEOUT_MS,
        );
        assert.equal(res.code, ResponseCode.SUCCESS, res.remark);
        const h = decodeSendMessageResponseHeader(res.extFields);
        assert.equal(h.msgId.split(',').length, 5, 'one offsetMsgId per message');
        assert.equal(h.queueId, 1);
        const r = await consume(topic, 5);
        assert.equal(r.received, 5, describeConsume(r));
        assert.deepEqual(r.corrupt, [], describeConsume(r));
        for (let seq = 0; seq < 5; seq++) assert.equal(r.ids[String(seq)], uniqs[seq]);
        assert.deepEqual(
          r.messages.map((m) => m.queueOffset),
          [0, 1, 2, 3, 4],
        );
      });
    });
  }
});
