/**
 * The Admin client against an embedded cluster with ACL on: it signs with the shared
 * `credentials` option, an admin account may create and delete topics, and an unsigned or
 * non-admin client gets AccessDeniedError naming the admin code, with nothing created.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Admin } from '../../src/admin/admin.js';
import { AccessDeniedError } from '../../src/errors.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { ADMIN, TEST_ACL, USER } from '../server/acl/helpers.js';

describe('admin client on a cluster with ACL', () => {
  let cluster: EmbeddedCluster;
  const admins: Admin[] = [];
  const adminAs = (credentials?: { accessKey: string; secretKey: string }): Admin => {
    const admin = new Admin({ namesrvAddr: cluster.namesrvAddr, ...(credentials ? { credentials } : {}) });
    admins.push(admin);
    return admin;
  };

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, brokerOptions: { acl: TEST_ACL } });
  });
  after(async () => {
    for (const a of admins) await a.close();
    await cluster.stop();
  });

  it('an admin account creates a topic and reads its route', async () => {
    const admin = adminAs(ADMIN);
    await admin.createTopic({
      topic: 'AclAdminTopic',
      readQueues: 2,
      writeQueues: 2,
      cluster: 'DefaultCluster',
    });
    const route = await admin.topicRoute('AclAdminTopic');
    assert.equal(route.queues[0]?.writeQueueNums, 2);
  });

  it('an unsigned admin and a non-admin account are refused with AccessDeniedError, nothing created', async () => {
    for (const who of [undefined, USER]) {
      const admin = adminAs(who);
      await assert.rejects(
        admin.createTopic({
          topic: 'AclRefusedTopic',
          readQueues: 1,
          writeQueues: 1,
          cluster: 'DefaultCluster',
        }),
        (err: unknown) => {
          assert.ok(err instanceof AccessDeniedError, `got ${String(err)}`);
          assert.equal(err.retriable, false);
          return true;
        },
      );
    }
    const topics = await adminAs(ADMIN).topics();
    assert.ok(!topics.includes('AclRefusedTopic'));
  });
});
