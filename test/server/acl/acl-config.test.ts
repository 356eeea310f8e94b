/**
 * plain_acl.yml handling: the file shape Apache RocketMQ ships, address patterns, permission
 * parsing, bad files rejected naming the line or field, and a broker picking up an edited file.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from '../../../src/errors.js';
import { signRequest } from '../../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest } from '../../../src/protocol/command.js';
import { compileAcl, compilePlainAclYaml } from '../../../src/server/acl/acl-config.js';
import { AclSource } from '../../../src/server/acl/acl-source.js';
import { checkPermission, parsePerm, Perm } from '../../../src/server/acl/permission.js';
import { addressMatcher } from '../../../src/server/acl/remote-address.js';
import { parseYamlSubset } from '../../../src/server/acl/yaml-subset.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header } from '../broker/rpc-helpers.js';

/** The layout of Apache RocketMQ's distribution/conf/plain_acl.yml (values are test data). */
const SHIPPED = `
globalWhiteRemoteAddresses:
  - 127.0.9.*
  - 127.0.8.*

accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      # the group should convert to retry topic
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB

  - accessKey: rocketmq2
    secretKey: "12345678"   # quoted
    whiteRemoteAddress: 127.0.7.1
    # if it is admin, it could access all resources
    admin: true
`;

describe('plain_acl.yml', () => {
  it('the shipped file shape parses to the expected accounts', () => {
    const acl = compilePlainAclYaml(SHIPPED);
    assert.equal(acl.globalWhite.length, 2);
    assert.ok(acl.globalWhite[0]!('127.0.9.200'));
    const a = acl.accounts.get('RocketMQ')!;
    assert.equal(a.secretKey, '12345678');
    assert.equal(a.admin, false);
    assert.equal(a.defaultTopicPerm, Perm.DENY);
    assert.equal(a.defaultGroupPerm, Perm.SUB);
    assert.deepEqual(
      [...a.perms],
      [
        ['topicA', Perm.DENY],
        ['topicB', Perm.PUB | Perm.SUB],
        ['topicC', Perm.SUB],
        ['%RETRY%groupA', Perm.DENY],
        ['%RETRY%groupB', Perm.PUB | Perm.SUB],
        ['%RETRY%groupC', Perm.SUB],
      ],
    );
    const b = acl.accounts.get('rocketmq2')!;
    assert.equal(b.admin, true);
    assert.ok(b.white('127.0.7.1'));
    assert.ok(!a.white('127.0.7.1'));
  });

  it('flow sequences, quotes and comments', () => {
    const doc = parseYamlSubset("a: [x, 'y z', \"q#\"]  # c\nb: ~\nc: 'it''s'");
    assert.deepEqual(
      { ...(doc as object) },
      {
        a: ['x', 'y z', 'q#'],
        b: null,
        c: "it's",
      },
    );
  });

  it('bad files are rejected naming the line or the field', () => {
    const bad = (text: string, field: RegExp | string): void =>
      assert.throws(
        () => compilePlainAclYaml(text),
        (e: unknown) =>
          e instanceof InvalidArgumentError &&
          (typeof field === 'string' ? e.field === field : field.test(e.message)),
      );
    bad('accounts:\n  - accessKey: short\n    secretKey: 12345678\n', 'acl.accounts[0]');
    bad(
      'accounts:\n  - accessKey: RocketMQ\n    secretKey: 12345678\n    topicPerms: [noequals]\n',
      'acl.accounts[0].topicPerms[0]',
    );
    bad(
      'accounts:\n  - accessKey: RocketMQ\n    secretKey: 12345678\n    admni: true\n',
      'acl.accounts[0].admni',
    );
    bad('globalWhiteRemoteAddresses: ["*.1.2.3"]\naccounts: []\n', 'acl.globalWhiteRemoteAddresses[0]');
    bad('accounts: &anchor\n', /line 1/);
    bad('accounts:\n  - accessKey: RocketMQ\n  accessKey: again\n', /line 3/);
  });

  it('an accessKey defined twice keeps its first definition (Java)', () => {
    const acl = compileAcl({
      accounts: [
        { accessKey: 'Account1', secretKey: 'first-secret' },
        { accessKey: 'Account1', secretKey: 'second-secret' },
      ],
    });
    assert.equal(acl.accounts.get('Account1')?.secretKey, 'first-secret');
  });
});

describe('address patterns and permissions', () => {
  it('match as Java RemoteAddressStrategyFactory', () => {
    const m = (p: string, host: string): boolean => addressMatcher('f', p)(host);
    assert.ok(m('*', '127.0.0.1'));
    assert.ok(!m('', '127.0.0.1'));
    assert.ok(m('127.0.0.1', '127.0.0.1'));
    assert.ok(m('127.0.0.1,127.0.0.2', '127.0.0.2'));
    assert.ok(m('127.0.0.{1,5}', '127.0.0.5'));
    assert.ok(!m('127.0.0.{1,5}', '127.0.0.4'));
    assert.ok(m('127.0.*.*', '127.0.44.1'));
    assert.ok(m('127.0.0.1-10', '127.0.0.10'));
    assert.ok(!m('127.0.0.1-10', '127.0.0.11'));
    assert.ok(m('::1', '0:0:0:0:0:0:0:1'));
    assert.ok(m('127.0.0.1', '::ffff:127.0.0.1'));
  });

  it('permissions as Java Permission.checkPermission', () => {
    assert.equal(parsePerm('SUB|PUB'), 12);
    assert.equal(parsePerm('bogus'), Perm.DENY);
    assert.ok(checkPermission(Perm.PUB, parsePerm('PUB|SUB')));
    assert.ok(!checkPermission(Perm.PUB, parsePerm('SUB')));
    assert.ok(checkPermission(Perm.ANY, parsePerm('SUB')));
    assert.ok(!checkPermission(Perm.SUB, Perm.DENY | Perm.SUB));
  });
});

describe('ACL file reload', () => {
  const file = (secret: string): string =>
    `accounts:\n  - accessKey: ReloadUser\n    secretKey: ${secret}\n    defaultTopicPerm: PUB\n`;

  it('a broker started with --acl FILE applies an edited file without a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rmq-acl-'));
    const path = join(dir, 'plain_acl.yml');
    await writeFile(path, file('first-secret'));
    const cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: path } });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    const sendWith = async (secret: string): Promise<number> => {
      const cmd = createRequest(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic: 'ReloadTopic', body: 'r' }),
        Buffer.from('r'),
      );
      signRequest(cmd, 'ReloadUser', secret);
      return (await rpc.conn.request(cmd, 5000)).code;
    };
    try {
      assert.equal(await sendWith('first-secret'), ResponseCode.SUCCESS);
      await writeFile(path, file('second-secret'));
      for (let i = 0; i < 100 && (await sendWith('second-secret')) !== ResponseCode.SUCCESS; i++)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal(await sendWith('second-secret'), ResponseCode.SUCCESS);
      assert.equal(await sendWith('first-secret'), ResponseCode.NO_PERMISSION);
      // A broken edit keeps the last good configuration.
      await writeFile(path, 'accounts:\n  - accessKey: x\n');
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(await sendWith('second-secret'), ResponseCode.SUCCESS);
    } finally {
      rpc.close();
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('AclSource rejects an unreadable file naming the acl field', () => {
    assert.throws(
      () => new AclSource('/nonexistent/dir/plain_acl.yml', { debug() {}, info() {}, warn() {}, error() {} }),
      (e: unknown) => e instanceof InvalidArgumentError && e.field === 'acl',
    );
  });
});
