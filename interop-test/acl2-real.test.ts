/**
 * ACL 2.0 admin against a real RocketMQ 5.5.0 broker started with `authenticationEnabled` and
 * `authorizationEnabled` (local metadata providers), bootstrapped with a Super user
 * (`initAuthenticationUser`) that the broker's own inner clients sign as
 * (`innerClientAuthenticationCredentials`). Our Admin, signed as that Super user with the 1.0
 * signature (Java's AclClientRPCHook, which 5.x still checks), creates a user, reads it back,
 * grants it PUB on one topic; a producer signed as that user sends there and is refused on another
 * topic with AccessDeniedError; then the ACL is updated (PUB now on the other topic), the user
 * disabled and deleted, each seen by the broker.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { AccessDeniedError } from '../src/errors.js';
import { Producer } from '../src/producer/producer.js';
import { RealCluster } from './real-cluster.js';

const ROOT = { accessKey: 'rocketmq2', secretKey: '12345678' };
const VERSION = '5.5.0';

describe(
  `ACL 2.0 admin on a real RocketMQ ${VERSION} broker with authentication and authorization`,
  { timeout: 300_000 },
  () => {
    let cluster: RealCluster;
    let admin: Admin;
    const producers: Producer[] = [];
    const run = Date.now().toString(36);
    const user = `alice_${run}`;
    const subject = `User:${user}`;
    const allowed = `Acl2Allowed_${run}`;
    const other = `Acl2Other_${run}`;
    const target = { cluster: 'DefaultCluster' };

    before(async () => {
      cluster = await RealCluster.start({
        version: VERSION,
        brokers: ['broker-a'],
        brokerConfig: {
          authenticationEnabled: true,
          authenticationMetadataProvider:
            'org.apache.rocketmq.auth.authentication.provider.LocalAuthenticationMetadataProvider',
          authorizationEnabled: true,
          authorizationMetadataProvider:
            'org.apache.rocketmq.auth.authorization.provider.LocalAuthorizationMetadataProvider',
          initAuthenticationUser: JSON.stringify({ username: ROOT.accessKey, password: ROOT.secretKey }),
          innerClientAuthenticationCredentials: JSON.stringify(ROOT),
        },
      });
      admin = new Admin({ namesrvAddr: cluster.namesrvAddr, credentials: ROOT, mqClientApiTimeout: 10_000 });
      for (const topic of [allowed, other])
        await admin.createTopic({ topic, readQueues: 2, writeQueues: 2, ...target });
    });
    after(async () => {
      for (const p of producers) await p.shutdown();
      await admin?.close();
      await cluster?.stop();
    });

    const producerAs = async (secretKey: string): Promise<Producer> => {
      const p = new Producer({
        producerGroup: `acl2_pg_${run}_${producers.length}`,
        namesrvAddr: cluster.namesrvAddr,
        instanceName: `acl2_${run}_${producers.length}`,
        credentials: { accessKey: user, secretKey },
        sendMsgTimeout: 5000,
        retryTimesWhenSendFailed: 0,
      });
      producers.push(p);
      await p.start();
      return p;
    };
    const refused = async (p: Producer, topic: string, reason: RegExp): Promise<void> => {
      const err = await p.send({ topic, body: 'x' }).then(
        () => assert.fail(`a send to ${topic} must be refused`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof AccessDeniedError, String(err));
      assert.equal(err.retriable, false);
      assert.match(err.remark, reason);
    };

    it('creates a user, reads it back from the broker and lists it', async () => {
      const written = await admin.createUser({ username: user, password: 'pw-1' }, target);
      assert.deepEqual(written, [cluster.brokers[0]!.addr]);
      const got = await admin.getUser(user, target);
      assert.equal(got?.username, user);
      assert.equal(got?.userType, 'Normal');
      assert.equal(got?.userStatus, 'enable');
      assert.deepEqual(
        (await admin.listUsers(run, target)).map((u) => u.username),
        [user],
      );
      assert.ok(
        (await admin.listUsers(undefined, target)).some(
          (u) => u.username === ROOT.accessKey && u.userType === 'Super',
        ),
      );
      assert.equal(await admin.getUser(`nobody_${run}`, target), undefined);
    });

    it('an ACL granting PUB on one topic: the user sends there, and is AccessDeniedError elsewhere', async () => {
      await admin.createAcl(
        { subject, resources: [`Topic:${allowed}`], actions: ['Pub'], decision: 'Allow' },
        target,
      );
      const acl = await admin.getAcl(subject, target);
      assert.equal(acl?.subject, subject);
      const entries = acl?.policies.flatMap((p) => p.entries) ?? [];
      assert.deepEqual(
        entries.map((e) => [e.resource, e.actions.join(','), e.decision]),
        [[`Topic:${allowed}`, 'Pub', 'Allow']],
      );
      assert.ok((await admin.listAcl({ subject: user }, target)).some((a) => a.subject === subject));

      const p = await producerAs('pw-1');
      assert.equal((await p.send({ topic: allowed, body: 'granted' })).status, 'SEND_OK');
      await refused(p, other, /permission|not allowed/i);
    });

    it('updates the ACL and the user; deletes both; the broker applies each', async () => {
      await admin.updateAcl(
        { subject, resources: [`Topic:${other}`], actions: ['Pub'], decision: 'Allow' },
        target,
      );
      const resources = (await admin.getAcl(subject, target))?.policies.flatMap((p) =>
        p.entries.map((e) => e.resource),
      );
      assert.ok(resources?.includes(`Topic:${other}`), String(resources));
      const p = await producerAs('pw-1');
      assert.equal((await p.send({ topic: other, body: 'granted after update' })).status, 'SEND_OK');

      await admin.deleteAcl(subject, `Topic:${other}`, target);
      await refused(p, other, /permission|not allowed/i);

      await admin.updateUser({ username: user, password: 'pw-2' }, target);
      await refused(await producerAs('pw-1'), allowed, /signature/i);
      assert.equal(
        (await (await producerAs('pw-2')).send({ topic: allowed, body: 'new password' })).status,
        'SEND_OK',
      );

      await admin.deleteAcl(subject, undefined, target);
      assert.equal(await admin.getAcl(subject, target), undefined);
      await admin.deleteUser(user, target);
      assert.equal(await admin.getUser(user, target), undefined);
      await refused(await producerAs('pw-2'), allowed, /not found|No user|not exist/i);
    });
  },
);
