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
  BrokerResponseError,
  InvalidArgumentError,
  RequestNotSupportedError,
} from '../../src/errors.js';
import {
  encodeAclInfo,
  encodeAclInfoList,
  encodeUserInfo,
  encodeUserInfoList,
  parseAclInfo,
  parseUserInfo,
  type AclInfo,
  type UserInfo,
} from '../../src/protocol/body/auth.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../src/protocol/command.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';

/** A broker's ACL 2.0 metadata in memory, answering as AdminBrokerProcessor does. */
class FakeAuthBroker {
  readonly server = new RemotingServer({ host: '127.0.0.1', port: 0 });
  readonly users = new Map<string, UserInfo>();
  readonly acls = new Map<string, AclInfo>();
  readonly codes: number[] = [];
  address = '';

  async start(): Promise<string> {
    const reply = (
      r: RemotingCommand,
      body?: Buffer,
      code: number = ResponseCode.SUCCESS,
      remark?: string,
    ) => {
      const res = createResponse(r, code, remark);
      if (body) res.body = body;
      return res;
    };
    const ext = (r: RemotingCommand, k: string) => r.extFields?.[k];
    const on = (code: number, handle: (r: RemotingCommand) => RemotingCommand) =>
      this.server.registerProcessor(code, (r) => {
        this.codes.push(code);
        return handle(r);
      });
    on(RequestCode.AUTH_CREATE_USER, (r) => {
      const u = parseUserInfo(r.body)!;
      this.users.set(ext(r, 'username')!, { userType: 'Normal', userStatus: 'enable', ...u });
      return reply(r);
    });
    on(RequestCode.AUTH_UPDATE_USER, (r) => {
      const old = this.users.get(ext(r, 'username')!);
      if (!old) return reply(r, undefined, ResponseCode.NO_PERMISSION, 'The user is not exist');
      this.users.set(old.username, { ...old, ...parseUserInfo(r.body) });
      return reply(r);
    });
    on(RequestCode.AUTH_DELETE_USER, (r) => (this.users.delete(ext(r, 'username')!), reply(r)));
    on(RequestCode.AUTH_GET_USER, (r) => {
      const u = this.users.get(ext(r, 'username')!);
      return reply(r, u && encodeUserInfo(u));
    });
    on(RequestCode.AUTH_LIST_USER, (r) => {
      const f = ext(r, 'filter') ?? '';
      const list = [...this.users.values()].filter((u) => u.username.includes(f));
      return reply(r, list.length > 0 ? encodeUserInfoList(list) : undefined);
    });
    const putAcl = (r: RemotingCommand) => {
      const acl = parseAclInfo(r.body)!;
      this.acls.set(ext(r, 'subject')!, acl);
      return reply(r);
    };
    on(RequestCode.AUTH_CREATE_ACL, putAcl);
    on(RequestCode.AUTH_UPDATE_ACL, putAcl);
    on(RequestCode.AUTH_DELETE_ACL, (r) => {
      const subject = ext(r, 'subject')!;
      const resource = ext(r, 'resource');
      const acl = this.acls.get(subject);
      if (acl && resource !== undefined)
        for (const p of acl.policies) p.entries = p.entries.filter((e) => e.resource !== resource);
      else this.acls.delete(subject);
      return reply(r);
    });
    on(RequestCode.AUTH_GET_ACL, (r) => {
      const a = this.acls.get(ext(r, 'subject')!);
      return reply(r, a && encodeAclInfo(a));
    });
    on(RequestCode.AUTH_LIST_ACL, (r) => {
      const s = ext(r, 'subjectFilter') ?? '';
      const list = [...this.acls.values()].filter((a) => a.subject.includes(s));
      return reply(r, list.length > 0 ? encodeAclInfoList(list) : undefined);
    });
    const { port } = await this.server.listen();
    this.address = `127.0.0.1:${port}`;
    return this.address;
  }
}

describe('ACL 2.0 admin', () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;
  const master = new FakeAuthBroker();
  const slave = new FakeAuthBroker();
  const AUTH = { cluster: 'AuthCluster' };

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
    const wrapper = { dataVersion: { counter: 1, timestamp: 1 }, topicConfigTable: {} };
    for (const [broker, brokerId] of [
      [master, 0],
      [slave, 1],
    ] as const)
      cluster.namesrv.routes.registerBroker({
        clusterName: 'AuthCluster',
        brokerAddr: await broker.start(),
        brokerName: 'auth-a',
        brokerId,
        haServerAddr: '',
        topicConfigWrapper: wrapper,
      });
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
        assert.match(err.remark, /embedded broker: its ACL is 1\.0 \(plain_acl\.yml\)/);
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
    assert.equal(master.codes.length + slave.codes.length, sent);
  });
});
