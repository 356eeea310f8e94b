/**
 * Security against real Apache RocketMQ: our signed producer, over TLS, on a real broker with ACL
 * on (4.9.7: ACL 1.0, `aclEnable=true` + `plain_acl.yml`; 5.5.0: ACL 2.0 authentication, which
 * still checks the 1.0 signature with username/password) and `-Dtls.server.mode=enforcing`: a
 * signed send is accepted, a wrong secret is AccessDeniedError without retries, a plain client
 * gets nowhere. And the Java producer against our embedded cluster: signed by AclClientRPCHook
 * against our ACL, and over TLS (`-Dtls.enable=true`) against our enforcing servers.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AccessDeniedError } from '../src/errors.js';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { makeTestCerts, startEnforcingTlsCluster, type TestCerts } from '../test/helpers/tls-certs.js';
import {
  describeConsume,
  INTEROP_VERSIONS,
  runDriver,
  type ConsumeResult,
  type ProduceResult,
} from './java.js';
import { RealCluster } from './real-cluster.js';

const AK = 'rocketmq2';
const SK = '12345678';
const DENIED = { accessKey: 'deniedUser1', secretKey: 'denied-secret-1' };

const PLAIN_ACL = `globalWhiteRemoteAddresses: []
accounts:
  - accessKey: ${AK}
    secretKey: ${SK}
    whiteRemoteAddress:
    admin: true
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: PUB|SUB
`;

function aclSetup(version: string): {
  brokerConfig: Record<string, string | boolean>;
  confFiles?: Record<string, string>;
} {
  if (version.startsWith('4.'))
    return { brokerConfig: { aclEnable: true }, confFiles: { 'plain_acl.yml': PLAIN_ACL } };
  return {
    brokerConfig: {
      authenticationEnabled: true,
      authenticationMetadataProvider:
        'org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider',
      initAuthenticationUser: JSON.stringify({ username: AK, password: SK }),
      innerClientAuthenticationCredentials: JSON.stringify({ accessKey: AK, secretKey: SK }),
    },
  };
}

describe('security interop', { concurrency: 1 }, () => {
  for (const { version } of INTEROP_VERSIONS) {
    describe(
      `RocketMQ ${version}: our signed producer on a real broker with ACL`,
      { timeout: 300_000 },
      () => {
        let cluster: RealCluster;
        const producers: Producer[] = [];
        const run = `${version.replace(/\./g, '')}_${Date.now().toString(36)}`;
        before(async () => {
          cluster = await RealCluster.start({
            version,
            brokers: ['broker-a'],
            ...aclSetup(version),
            // Java's test mode: a self-signed server certificate; the broker then registers over TLS.
            brokerJvmArgs: ['-Dtls.server.mode=enforcing'],
          });
        });
        after(async () => {
          for (const p of producers) await p.shutdown();
          await cluster?.stop();
        });
        const producer = async (secretKey: string, name: string, tls = true): Promise<Producer> => {
          const p = new Producer({
            producerGroup: `interop_acl_${name}_${run}`,
            namesrvAddr: cluster.namesrvAddr,
            instanceName: `acl_${name}_${run}`,
            credentials: { accessKey: AK, secretKey },
            // Java's test-mode certificate is self-signed: trust it as Java's client does.
            tls: tls ? { rejectUnauthorized: false } : false,
            sendMsgTimeout: tls ? 10_000 : 3000,
          });
          producers.push(p);
          await p.start();
          return p;
        };

        it('a signed send is accepted; a wrong secret is AccessDeniedError, not retried', async () => {
          const topic = `AclTopic_${run}`;
          const good = await producer(SK, 'good');
          const r = await good.send({ topic, body: 'signed' });
          assert.equal(r.status, 'SEND_OK');
          const bad = await producer('wrong-secret', 'bad');
          const started = Date.now();
          const err = await bad.send({ topic, body: 'x' }).then(
            () => assert.fail('a wrong secret must be refused'),
            (e: unknown) => e,
          );
          assert.ok(err instanceof AccessDeniedError, String(err));
          assert.equal(err.retriable, false);
          assert.match(err.remark, /signature/i);
          assert.ok(Date.now() - started < 10_000);
        });

        it('a signed batch is accepted (batches are signed like single sends)', async () => {
          const good = await producer(SK, 'batch');
          const r = await good.sendBatch([
            { topic: `AclTopic_${run}`, body: 'b1' },
            { topic: `AclTopic_${run}`, body: 'b2' },
          ]);
          assert.equal(r.status, 'SEND_OK');
        });

        it('a plain client cannot send to the enforcing broker', async () => {
          const plain = await producer(SK, 'plain', false);
          await assert.rejects(plain.send({ topic: `AclTopic_${run}`, body: 'plain' }), /connection closed/);
        });
      },
    );

    describe(
      `RocketMQ ${version}: the Java producer signed against our ACL broker`,
      { timeout: 300_000 },
      () => {
        let cluster: EmbeddedCluster;
        before(async () => {
          const acl = {
            accounts: [
              { accessKey: AK, secretKey: SK, defaultTopicPerm: 'PUB|SUB', defaultGroupPerm: 'SUB' },
              { ...DENIED, defaultTopicPerm: 'DENY', defaultGroupPerm: 'SUB' },
            ],
          };
          cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl } });
        });
        after(async () => {
          await cluster?.stop();
        });
        const produce = (
          topic: string,
          count: number,
          secretKey: string,
          accessKey = AK,
          batch = 1,
        ): Promise<ProduceResult> =>
          runDriver<ProduceResult>(
            version,
            [
              'produce',
              '--namesrv',
              cluster.namesrvAddr,
              '--topic',
              topic,
              '--count',
              String(count),
              '--start',
              '0',
              '--batch',
              String(batch),
            ],
            { jvmArgs: [`-Dinterop.accessKey=${accessKey}`, `-Dinterop.secretKey=${secretKey}`] },
          );

        it('batch sends: accepted with PUB, refused for a DENY account (nothing stored)', async () => {
          const topic = `JavaAclBatch_${version.replace(/\./g, '')}`;
          await cluster.createTopic(topic, 4);
          const ok = await produce(topic, 20, SK, AK, 10);
          assert.equal(ok.sent, 20, JSON.stringify(ok.errors));
          const denied = await produce(topic, 10, DENIED.secretKey, DENIED.accessKey, 10);
          assert.equal(denied.sent, 0, 'a DENY account stored a batch');
          const broker = cluster.broker('broker-a');
          const stored = broker.store
            .queueIds(topic)
            .reduce((n, q) => n + broker.store.getMaxOffset(topic, q), 0);
          assert.equal(stored, 20);
        });

        it('a signed Java push consumer passes the field-fit rules: heartbeat, pull, offsets', async () => {
          const topic = `JavaAclConsume_${version.replace(/\./g, '')}`;
          await cluster.createTopic(topic, 4);
          const sent = await produce(topic, 30, SK);
          assert.equal(sent.sent, 30, JSON.stringify(sent.errors));
          const r = await runDriver<ConsumeResult>(
            version,
            [
              'consume',
              '--namesrv',
              cluster.namesrvAddr,
              '--topic',
              topic,
              '--group',
              `interop_acl_cg_${version.replace(/\./g, '')}`,
              '--expect',
              '30',
              '--timeout-ms',
              '90000',
            ],
            { jvmArgs: [`-Dinterop.accessKey=${AK}`, `-Dinterop.secretKey=${SK}`] },
          );
          assert.equal(r.missingCount, 0, describeConsume(r));
        });

        it('accepts AclClientRPCHook-signed sends and refuses a wrong secret', async () => {
          const topic = `JavaAcl_${version.replace(/\./g, '')}`;
          await cluster.createTopic(topic, 4);
          const ok = await produce(topic, 10, SK);
          assert.equal(ok.sent, 10, JSON.stringify(ok.errors));
          const bad = await produce(topic, 2, 'wrong-secret');
          // Java's MQClientException after its retries does not carry the broker's remark; that
          // every send failed is the outcome (the ACL scenario tests check our remark verbatim).
          assert.equal(bad.sent, 0);
          assert.equal(bad.failed, 2, JSON.stringify(bad.errors));
        });
      },
    );

    describe(
      `RocketMQ ${version}: the Java producer over TLS to our embedded cluster`,
      { timeout: 300_000 },
      () => {
        let certs: TestCerts;
        let cluster: EmbeddedCluster;
        before(async () => {
          certs = makeTestCerts();
          cluster = await startEnforcingTlsCluster(certs);
        });
        after(async () => {
          await cluster?.stop();
          certs?.cleanup();
        });

        it('sends every message with -Dtls.enable=true', async () => {
          const topic = `TlsTopic_${version.replace(/\./g, '')}`;
          await cluster.createTopic(topic, 4);
          const r = await runDriver<ProduceResult>(
            version,
            ['produce', '--namesrv', cluster.namesrvAddr, '--topic', topic, '--count', '20', '--start', '0'],
            { jvmArgs: ['-Dtls.enable=true'] },
          );
          assert.equal(r.sent, 20, JSON.stringify(r.errors));
          assert.equal(r.failed, 0);
        });
      },
    );
  }
});
