/**
 * `rocketmq-ts admin createUser … listAcl` (mqadmin's ACL 2.0 commands): against a fake 5.3
 * broker registered at an embedded NameServer they print mqadmin's success lines and tables
 * (and JSON with --json); against the embedded broker (ACL 1.0 only) one error line says ACL 2.0
 * admin needs a 5.3+ broker; a missing required flag exits 2 with nothing sent.
 */
import { after, before, describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { FakeAuthBroker, registerFakeBroker } from '../helpers/fake-auth-broker.js';
import { assertOneLineError, killAll, runCli } from './run-cli.js';

describe('admin ACL 2.0 commands', () => {
  let cluster: EmbeddedCluster;
  const broker = new FakeAuthBroker();
  let n: string[];
  const ok = async (args: string[]): Promise<string> => {
    const r = await runCli(['admin', ...args, ...n]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1 });
    n = ['-n', cluster.namesrvAddr];
    registerFakeBroker(cluster, 'AuthCluster', 'auth-a', 0, await broker.start());
  });
  after(async () => {
    killAll();
    await broker.server.close();
    await cluster.stop();
  });

  it('creates a user and an ACL, then lists and gets them as mqadmin prints them', async () => {
    assert.equal(
      await ok(['createUser', '-c', 'AuthCluster', '-u', 'alice', '-p', 'pw1']),
      `create user to ${broker.address} success.\n`,
    );
    assert.match(
      await ok(['listUser', '-c', 'AuthCluster']),
      /#UserName\s+#Password\s+#UserType\s+#UserStatus\nalice\s+pw1\s+Normal\s+enable/,
    );
    await ok(['updateUser', '-b', broker.address, '-u', 'alice', '-s', 'disable']);
    const user = JSON.parse(await ok(['getUser', '-c', 'AuthCluster', '-u', 'alice', '--json'])) as {
      userStatus: string;
    };
    assert.equal(user.userStatus, 'disable');

    await ok([
      'createAcl',
      '-c',
      'AuthCluster',
      '-s',
      'User:alice',
      '-r',
      'Topic:orders, Group:billing',
      '-a',
      'Pub,Sub',
      '-d',
      'Allow',
    ]);
    const acl = await ok(['getAcl', '-c', 'AuthCluster', '-s', 'User:alice']);
    assert.match(acl, /#Subject\s+#PolicyType\s+#Resource\s+#Actions\s+#SourceIp\s+#Decision/);
    assert.match(acl, /User:alice\s+Custom\s+Topic:orders\s+Pub,Sub\s+Allow/);
    assert.match(acl, /User:alice\s+Custom\s+Group:billing\s+Pub,Sub\s+Allow/);
    await ok(['deleteAcl', '-c', 'AuthCluster', '-s', 'User:alice', '-r', 'Group:billing']);
    assert.doesNotMatch(await ok(['listAcl', '-c', 'AuthCluster', '-s', 'alice']), /Group:billing/);
    await ok(['deleteUser', '-c', 'AuthCluster', '-u', 'alice']);
    assert.equal(await ok(['getUser', '-c', 'AuthCluster', '-u', 'alice']), '');
  });

  it('on the embedded broker: one error line saying ACL 2.0 admin needs a 5.3+ broker', async () => {
    const r = await runCli(['admin', 'listUser', '-c', 'DefaultCluster', ...n]);
    assertOneLineError(r, 1, /ERR_AUTH_ADMIN_NOT_SUPPORTED.*AUTH_LIST_USER \(3005\).*5\.3\+ broker/);
  });

  it('a missing required flag or a bad value exits 2 and sends nothing', async () => {
    const before = broker.codes.length;
    assertOneLineError(
      await runCli(['admin', 'createUser', '-c', 'AuthCluster', '-u', 'bob', ...n]),
      2,
      /--password/,
    );
    assertOneLineError(
      await runCli([
        'admin',
        'createAcl',
        '-b',
        broker.address,
        '-s',
        'User:bob',
        '-r',
        'Topic:t',
        '-a',
        'Write',
        '-d',
        'Allow',
        ...n,
      ]),
      2,
      /actions\[0\]/,
    );
    assertOneLineError(await runCli(['admin', 'getUser', '-u', 'bob', ...n]), 2, /--broker or --cluster/);
    assert.equal(broker.codes.length, before);
  });
});
