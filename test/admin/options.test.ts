import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_ADMIN_OPTIONS, validateAdminOptions } from '../../src/admin/options.js';
import { invalidArgument } from '../invalid-argument.js';

describe('Admin options', () => {
  it("resolve to Java's admin timeout, frozen, with NameServer addresses split", () => {
    const o = validateAdminOptions({ namesrvAddr: '127.0.0.1:9876;127.0.0.2:9876' });
    assert.deepEqual(o.namesrvAddr, ['127.0.0.1:9876', '127.0.0.2:9876']);
    assert.equal(o.mqClientApiTimeout, 5000);
    assert.equal(o.mqClientApiTimeout, DEFAULT_ADMIN_OPTIONS.mqClientApiTimeout);
    assert.ok(Object.isFrozen(o) && Object.isFrozen(DEFAULT_ADMIN_OPTIONS));
    assert.equal(o.connection.credentials, undefined);
  });

  it('reject unknown keys with a suggestion, bad timeouts, incomplete credentials and non-object tls', () => {
    const base = { namesrvAddr: '127.0.0.1:9876' };
    const e = invalidArgument(() => validateAdminOptions({ ...base, mqClientApiTimeOut: 1 } as never));
    assert.match(e.message, /did you mean mqClientApiTimeout/);
    const renamed = invalidArgument(() => validateAdminOptions({ ...base, requestTimeout: 1 } as never));
    assert.equal(renamed.field, 'requestTimeout');
    assert.match(renamed.message, /it is named mqClientApiTimeout/);
    assert.equal(
      invalidArgument(() => validateAdminOptions({ ...base, mqClientApiTimeout: 0 })).field,
      'mqClientApiTimeout',
    );
    assert.equal(
      invalidArgument(() => validateAdminOptions({ ...base, credentials: { accessKey: 'ak' } as never }))
        .field,
      'credentials.secretKey',
    );
    assert.equal(invalidArgument(() => validateAdminOptions({ ...base, tls: 'yes' as never })).field, 'tls');
    const o = validateAdminOptions({
      ...base,
      credentials: { accessKey: 'ak1234567', secretKey: 'sk1234567' },
      tls: true,
    });
    assert.equal(o.connection.credentials?.accessKey, 'ak1234567');
    assert.notEqual(o.connection.tls, undefined);
  });
});
