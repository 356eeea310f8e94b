/**
 * ACL 2.0 admin against a real RocketMQ 4.9.7 broker, which has ACL 1.0 only: the broker answers
 * the user and ACL requests (3001–3010) REQUEST_CODE_NOT_SUPPORTED, and every Admin call is an
 * AuthAdminNotSupportedError naming the request and saying a 5.3+ broker is needed.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../src/admin/admin.js';
import { AuthAdminNotSupportedError } from '../src/errors.js';
import { RealCluster } from './real-cluster.js';

describe('ACL 2.0 admin on a real RocketMQ 4.9.7 broker', { timeout: 300_000 }, () => {
  let cluster: RealCluster;
  let admin: Admin;
  before(async () => {
    cluster = await RealCluster.start({ version: '4.9.7', brokers: ['broker-a'] });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr, mqClientApiTimeout: 10_000 });
  });
  after(async () => {
    await admin?.close();
    await cluster?.stop();
  });

  it('every user and ACL call is an AuthAdminNotSupportedError', async () => {
    const target = { cluster: 'DefaultCluster' };
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['AUTH_CREATE_USER', () => admin.createUser({ username: 'u49', password: 'p' }, target)],
      ['AUTH_GET_USER', () => admin.getUser('u49', target)],
      ['AUTH_LIST_USER', () => admin.listUsers(undefined, target)],
      [
        'AUTH_CREATE_ACL',
        () =>
          admin.createAcl(
            { subject: 'User:u49', resources: ['Topic:T'], actions: ['Pub'], decision: 'Allow' },
            target,
          ),
      ],
      ['AUTH_LIST_ACL', () => admin.listAcl({}, target)],
      ['AUTH_DELETE_USER', () => admin.deleteUser('u49', target)],
    ];
    for (const [name, call] of calls)
      await assert.rejects(call(), (err: unknown) => {
        assert.ok(err instanceof AuthAdminNotSupportedError, `${name}: got ${String(err)}`);
        assert.equal(err.requestName, name);
        assert.equal(err.address, cluster.brokers[0]!.addr);
        assert.match(err.message, /needs a RocketMQ 5\.3\+ broker/);
        return true;
      });
  });
});
