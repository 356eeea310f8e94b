/**
 * One ACL rule for every request code the embedded broker serves (src/server/acl/request-rules.ts),
 * every NameServer code listed as unchecked, and docs/security.md §2.3 showing exactly that table:
 * adding a processor without a rule, or a rule without updating the docs, fails here.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { signRequest } from '../../../src/protocol/acl.js';
import { ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest } from '../../../src/protocol/command.js';
import type { RemotingServer } from '../../../src/remoting/server.js';
import { compileAcl } from '../../../src/server/acl/acl-config.js';
import { validateRequest } from '../../../src/server/acl/access-validator.js';
import { BROKER_ACL_RULES, NAMESRV_UNCHECKED_CODES } from '../../../src/server/acl/request-rules.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { ADMIN, TEST_ACL, USER } from './helpers.js';
import { CODE_NAMES as NAMES, renderAclTable } from './rules-table.js';

const DOC = fileURLToPath(new URL('../../../../docs/security.md', import.meta.url));
const START = '<!-- acl-rules:start (generated: test/server/acl/request-rules.test.ts) -->';
const END = '<!-- acl-rules:end -->';

describe('the ACL table covers every served request code', () => {
  let cluster: EmbeddedCluster;
  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      faultInjection: true,
      brokerOptions: { acl: TEST_ACL },
    });
  });
  after(() => cluster?.stop());

  const codesOf = (server: unknown): number[] =>
    (server as RemotingServer).requestCodes.sort((a, b) => a - b);

  it('every code the broker serves has a rule, and every rule is for a served code', () => {
    const served = codesOf(cluster.broker('broker-a')['server']);
    assert.deepEqual(
      served.filter((c) => !BROKER_ACL_RULES.has(c)).map((c) => `${NAMES.get(c)} (${c})`),
      [],
      'served codes without an ACL rule (add them to src/server/acl/request-rules.ts)',
    );
    assert.deepEqual(
      [...BROKER_ACL_RULES.keys()].filter((c) => !served.includes(c)).map((c) => `${NAMES.get(c)} (${c})`),
      [],
      'rules for codes the broker does not serve',
    );
  });

  it('every code the NameServer serves is in the table as unchecked', () => {
    assert.deepEqual(
      codesOf(cluster.namesrv['server']),
      [...NAMESRV_UNCHECKED_CODES].sort((a, b) => a - b),
    );
  });

  it('docs/security.md §2.3 is the table generated from the rules', () => {
    const text = readFileSync(DOC, 'utf8');
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    assert.ok(from >= 0 && to > from, `docs/security.md lacks the ${START} … ${END} markers`);
    const shown = text.slice(from + START.length, to).trim();
    assert.equal(shown, renderAclTable(), 'regenerate docs/security.md §2.3 from renderAclTable()');
  });

  it('a served code without a rule is admin-only; a code nothing serves needs only the signature', () => {
    const acl = compileAcl(TEST_ACL);
    const unlisted = 4242;
    const ask = (who: typeof USER, served: boolean): string | undefined => {
      const cmd = createRequest(unlisted, {});
      signRequest(cmd, who.accessKey, who.secretKey);
      try {
        validateRequest(acl, cmd, '127.0.0.1:1', () => served);
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    };
    assert.match(ask(USER, true) ?? '', /Need admin permission for request code=4242/);
    assert.equal(ask(ADMIN, true), undefined);
    assert.equal(ask(USER, false), undefined);
  });

  it('a non-admin account gets NO_PERMISSION for every admin-only code, before any processor runs', async () => {
    const { Rpc } = await import('../broker/rpc-helpers.js');
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      for (const [code, rule] of BROKER_ACL_RULES) {
        if (!rule.admin) continue;
        const cmd = createRequest(code, {});
        signRequest(cmd, USER.accessKey, USER.secretKey);
        const r = await rpc.conn.request(cmd, 5000);
        assert.equal(r.code, ResponseCode.NO_PERMISSION, `${NAMES.get(code)}: ${r.remark}`);
        assert.match(r.remark ?? '', /Need admin permission/);
      }
    } finally {
      rpc.close();
    }
  });
});
