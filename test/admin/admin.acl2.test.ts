/**
 * The Admin client's ACL 2.0 calls (users and ACL entries, codes 3001–3010): against the embedded
 * broker (ACL 1.0 only) every one is an AuthAdminNotSupportedError naming the request; against
 * two fake 5.3+ brokers (a master and its slave, registered at the embedded NameServer as
 * cluster AuthCluster) changes reach both and reads ask the master, as mqadmin's; bad input is an
 * InvalidArgumentError with nothing sent.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../../src/admin/admin.js';
import {
  AuthAdminNotSupportedError,
  BrokerNotFoundError,
  BrokerResponseError,
  InvalidArgumentError,
  RequestNotSupportedError,
} from '../../src/errors.js';
import type { AclInfo } from '../../src/protocol/body/auth.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FakeAuthBroker, registerFakeBroker } from '../helpers/fake-auth-broker.js';

describe('ACL 2.0 admin', () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  const master = new FakeAuthBroker();
  const slave = new FakeAuthBroker();
  const AUTH = { cluster: 'AuthCluster' };

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    registerFakeBroker(cluster, 'AuthCluster', 'auth-a', 0, await master.start());
    registerFakeBroker(cluster, 'AuthCluster', 'auth-a', 1, await slave.start());
  });
  after(async () => {
    await admin.close();
    await master.server.close();
    await slave.server.close();
    await cluster.stop();
  });

  it('the embedded broker answers every ACL 2.0 request with AuthAdminNotSupportedError', async () => {
    const target = { cluster: 'DefaultCluster' };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['AUTH_CREATE_USER', () => admin.createUser({ username: 'u1', password: 'p1' }, target)],
      ['AUTH_UPDATE_USER', () => admin.updateUser({ username: 'u1', password: 'p2' }, target)],
      ['AUTH_DELETE_USER', () => admin.deleteUser('u1', target)],
      ['AUTH_GET_USER', () => admin.getUser('u1', target)],
      ['AUTH_LIST_USER', () => admin.listUsers(undefined, target)],
      [
        'AUTH_CREATE_ACL',
        () =>
          admin.createAcl(
            { subject: 'User:u1', resources: ['Topic:T'], actions: ['Pub'], decision: 'Allow' },
            target,
          ),
      ],
      [
        'AUTH_UPDATE_ACL',
        () =>
          admin.updateAcl(
            { subject: 'User:u1', resources: ['Topic:T'], actions: ['Sub'], decision: 'Allow' },
            target,
          ),
      ],
      ['AUTH_DELETE_ACL', () => admin.deleteAcl('User:u1', 'Topic:T', target)],
      ['AUTH_GET_ACL', () => admin.getAcl('User:u1', target)],
      ['AUTH_LIST_ACL', () => admin.listAcl({}, target)],
    ];
    for (const [name, call] of calls)
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof AuthAdminNotSupportedError, `${name}: got ${String(err)}`);
        assert.ok(err instanceof RequestNotSupportedError);
        assert.equal(err.code, 'ERR_AUTH_ADMIN_NOT_SUPPORTED');
        assert.equal(err.requestName, name);
        assert.equal(err.address, cluster.brokers[0]!.addr);
        assert.match(err.message, /needs a RocketMQ 5\.3\+ broker/);
        assert.match(
          err.remark,
          new RegExp(
            `request type ${err.requestCode} \\(${name}\\) not supported: the rocketmq-ts embedded broker has ACL 1\\.0 \\(plain_acl\\.yml\\) only`,
          ),
        );
        return true;
      });
  });

  it('creates, reads, updates and deletes a user on the master and its slave', async () => {
    const written = await admin.createUser({ username: 'alice', password: 'pw1', userType: 'normal' }, AUTH);
    assert.deepEqual(written, [master.address, slave.address]);
    for (const b of [master, slave])
      assert.deepEqual(b.users.get('alice'), {
        username: 'alice',
        password: 'pw1',
        userType: 'Normal',
        userStatus: 'enable',
      });
    assert.equal((await admin.getUser('alice', AUTH))?.userType, 'Normal');
    assert.deepEqual(
      (await admin.listUsers('ali', AUTH)).map((u) => u.username),
      ['alice'],
    );
    assert.deepEqual(await admin.listUsers('nobody', AUTH), []);
    assert.equal(await admin.getUser('nobody', AUTH), undefined);

    await admin.updateUser({ username: 'alice', userStatus: 'disable' }, { brokers: ['auth-a'] });
    assert.equal(master.users.get('alice')?.userStatus, 'disable');
    assert.equal(slave.users.get('alice')?.userStatus, 'enable', '-b names one broker: its master only');
    await assert.rejects(
      admin.updateUser({ username: 'ghost', password: 'x' }, AUTH),
      (e: unknown) => e instanceof BrokerResponseError && /not exist/.test(e.message),
    );
    await admin.deleteUser('alice', AUTH);
    assert.equal(master.users.size + slave.users.size, 0);
  });

  it('creates an ACL as mqadmin createAcl builds it, reads, updates and deletes it', async () => {
    const reads = master.codes.length;
    await admin.createAcl(
      {
        subject: 'User:alice',
        resources: ['Topic:orders', 'group:billing'],
        actions: ['pub', 'Sub'],
        sourceIps: ['127.0.0.1'],
        decision: 'allow',
      },
      AUTH,
    );
    const expected: AclInfo = {
      subject: 'User:alice',
      policies: [
        {
          policyType: 'Custom',
          entries: [
            {
              resource: 'Topic:orders',
              actions: ['Pub', 'Sub'],
              sourceIps: ['127.0.0.1'],
              decision: 'Allow',
            },
            {
              resource: 'Group:billing',
              actions: ['Pub', 'Sub'],
              sourceIps: ['127.0.0.1'],
              decision: 'Allow',
            },
          ],
        },
      ],
    };
    assert.deepEqual(slave.acls.get('User:alice'), expected);
    assert.deepEqual(await admin.getAcl('User:alice', AUTH), expected);
    assert.deepEqual(
      (await admin.listAcl({ subject: 'alice' }, AUTH)).map((a) => a.subject),
      ['User:alice'],
    );
    assert.equal(slave.codes.filter((c) => c === RequestCode.AUTH_GET_ACL).length, 0, 'reads ask the master');
    assert.ok(master.codes.length > reads);

    await admin.updateAcl(
      { subject: 'User:alice', resources: ['Topic:orders'], actions: ['Sub'], decision: 'Deny' },
      AUTH,
    );
    assert.deepEqual(master.acls.get('User:alice')?.policies[0]?.entries[0]?.decision, 'Deny');
    await admin.deleteAcl('User:alice', 'Topic:orders', AUTH);
    assert.deepEqual(master.acls.get('User:alice')?.policies[0]?.entries, []);
    await admin.deleteAcl('User:alice', undefined, AUTH);
    assert.equal(await admin.getAcl('User:alice', AUTH), undefined);
    assert.deepEqual(await admin.listAcl({}, AUTH), []);
  });

  it('bad input is an InvalidArgumentError naming the field, with nothing sent', async () => {
    const sent = master.codes.length + slave.codes.length;
    const bad: Array<[string, () => Promise<unknown>]> = [
      ['username', () => admin.createUser({ username: ' ', password: 'x' }, AUTH)],
      ['password', () => admin.createUser({ username: 'a' } as never, AUTH)],
      ['userType', () => admin.createUser({ username: 'a', password: 'x', userType: 'Root' as never }, AUTH)],
      ['userStatus', () => admin.updateUser({ username: 'a', userStatus: 'off' as never }, AUTH)],
      ['user', () => admin.updateUser({ username: 'a' }, AUTH)],
      ['nope', () => admin.createUser({ username: 'a', password: 'x', nope: 1 } as never, AUTH)],
      ['subject', () => admin.getAcl('alice', AUTH)],
      [
        'resources[0]',
        () =>
          admin.createAcl(
            { subject: 'User:a', resources: ['Queue:q'], actions: ['Pub'], decision: 'Allow' },
            AUTH,
          ),
      ],
      [
        'resources',
        () =>
          admin.createAcl({ subject: 'User:a', resources: [], actions: ['Pub'], decision: 'Allow' }, AUTH),
      ],
      [
        'actions[0]',
        () =>
          admin.createAcl(
            { subject: 'User:a', resources: ['*'], actions: ['Write'], decision: 'Allow' },
            AUTH,
          ),
      ],
      [
        'decision',
        () =>
          admin.createAcl({ subject: 'User:a', resources: ['*'], actions: ['Pub'], decision: 'Maybe' }, AUTH),
      ],
      ['resource', () => admin.deleteAcl('User:a', 'Topic:', AUTH)],
    ];
    for (const [field, call] of bad)
      await assert.rejects(
        call(),
        (e: unknown) => e instanceof InvalidArgumentError && e.field === field,
        field,
      );
    await assert.rejects(
      admin.createUser({ username: 'a', password: 'x' }, { cluster: 'NoSuchCluster' }),
      BrokerNotFoundError,
    );
    assert.equal(master.codes.length + slave.codes.length, sent);
  });
});
