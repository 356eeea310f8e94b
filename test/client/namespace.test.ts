import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { isAlreadyWithNamespace, withoutNamespace, wrapNamespace } from '../../src/client/namespace.js';
import { buildClientId, defaultInstanceName, resolveInstanceName } from '../../src/client/client-id.js';
import { instanceKey } from '../../src/client/instance-registry.js';
import { silentLogger } from '../../src/observability/logger.js';

describe('namespace', () => {
  it('wraps topics and groups, keeping %RETRY% / %DLQ% in front', () => {
    assert.equal(wrapNamespace('ns', 'T'), 'ns%T');
    assert.equal(wrapNamespace('ns', '%RETRY%G'), '%RETRY%ns%G');
    assert.equal(wrapNamespace('ns', '%DLQ%G'), '%DLQ%ns%G');
    assert.equal(wrapNamespace('ns', 'ns%T'), 'ns%T', 'already wrapped');
    assert.equal(wrapNamespace('ns', '%RETRY%ns%G'), '%RETRY%ns%G');
    assert.equal(wrapNamespace('ns', 'TBW102'), 'TBW102', 'system topics are never wrapped');
    assert.equal(wrapNamespace('ns', 'rmq_sys_x'), 'rmq_sys_x');
    assert.equal(wrapNamespace(undefined, 'T'), 'T');
    assert.equal(isAlreadyWithNamespace('ns%T', 'ns'), true);
  });

  it('unwraps only its own namespace', () => {
    assert.equal(withoutNamespace('ns%T', 'ns'), 'T');
    assert.equal(withoutNamespace('%RETRY%ns%G', 'ns'), '%RETRY%G');
    assert.equal(withoutNamespace('other%T', 'ns'), 'other%T');
    assert.equal(withoutNamespace('T', undefined), 'T');
  });
});

describe('client identity', () => {
  it('clientId is ip@instance[@unit]; DEFAULT becomes <pid>#<hrtime>, fixed per process', () => {
    assert.equal(buildClientId('127.0.0.9', 'inst'), '127.0.0.9@inst');
    assert.equal(buildClientId('127.0.0.9', 'inst', 'unit'), '127.0.0.9@inst@unit');
    assert.match(defaultInstanceName(), new RegExp(`^${process.pid}#\\d+$`));
    assert.equal(resolveInstanceName('DEFAULT'), resolveInstanceName('DEFAULT'));
    assert.equal(buildClientId('1.2.3.4', 'DEFAULT'), `1.2.3.4@${defaultInstanceName()}`);
  });

  it('the instance key separates clusters that share a clientId (the pitfall Java has)', () => {
    const base = {
      clientId: '1.2.3.4@x',
      namespace: undefined,
      language: 'JAVA',
      mqClientApiTimeout: 3000,
      pollNameServerInterval: 30000,
      heartbeatBrokerInterval: 30000,
      createTopicKey: 'TBW102',
      defaultTopicQueueNums: 4,
      logger: silentLogger,
    };
    const a = instanceKey({ ...base, namesrvAddr: ['127.0.0.1:1', '127.0.0.1:2'] });
    const a2 = instanceKey({ ...base, namesrvAddr: ['127.0.0.1:2', '127.0.0.1:1'] });
    const b = instanceKey({ ...base, namesrvAddr: ['127.0.0.1:3'] });
    const c = instanceKey({ ...base, namesrvAddr: ['127.0.0.1:1', '127.0.0.1:2'], namespace: 'ns' });
    assert.equal(a, a2, 'same NameServer set in another order: shared');
    assert.notEqual(a, b);
    assert.notEqual(a, c);
  });

  it('producers with another createTopicKey or defaultTopicQueueNums get their own instance (the cached auto-create route depends on them)', () => {
    const base = {
      clientId: '1.2.3.4@x',
      namesrvAddr: ['127.0.0.1:1'],
      namespace: undefined,
      language: 'JAVA',
      mqClientApiTimeout: 3000,
      pollNameServerInterval: 30000,
      heartbeatBrokerInterval: 30000,
      createTopicKey: 'TBW102',
      defaultTopicQueueNums: 4,
      logger: silentLogger,
    };
    const a = instanceKey(base);
    assert.notEqual(a, instanceKey({ ...base, defaultTopicQueueNums: 8 }));
    assert.notEqual(a, instanceKey({ ...base, createTopicKey: 'MY_TEMPLATE' }));
    assert.equal(
      a,
      instanceKey({ ...base, logger: { ...silentLogger } }),
      'the logger does not split instances',
    );
  });
});
