import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ClientInstance } from '../../src/client/client-instance.js';
import { Deadline } from '../../src/client/deadline.js';
import type { TopicRouteData } from '../../src/protocol/headers/route.js';
import { fakeNameServer, instanceConfig } from '../client/helpers.js';

const PROXY = '127.0.0.9:8080';

/** A Proxy's route: every broker name at the Proxy's own address. */
function proxyRoute(brokers: string[]): TopicRouteData {
  return {
    queueDatas: brokers.map((brokerName) => ({
      brokerName,
      readQueueNums: 2,
      writeQueueNums: 2,
      perm: 6,
      topicSysFlag: 0,
    })),
    brokerDatas: brokers.map((brokerName) => ({ cluster: 'C', brokerName, brokerAddrs: { '0': PROXY } })),
    filterServerTable: {},
  };
}

test('two broker names at one address (a Proxy): one leaving the routes keeps the shared address and its connection', async () => {
  let brokers = ['broker-a', 'broker-b'];
  const ns = await fakeNameServer((topic) => (topic === 'T' ? proxyRoute(brokers) : undefined));
  const instance = new ClientInstance(instanceConfig([ns.address]));
  const added: string[] = [];
  const removed: string[] = [];
  instance.routes.on('brokerAddressAdded', (a: string) => added.push(a));
  instance.routes.on('brokerAddressRemoved', (a: string) => removed.push(a));
  try {
    await instance.routes.get('T', Deadline.after(2000));
    assert.deepEqual(added, [PROXY], 'one address, announced once for both broker names');
    assert.deepEqual(instance.routes.brokerAddresses(false), [PROXY]);
    brokers = ['broker-a'];
    await instance.routes.refresh();
    assert.equal(instance.routes.masterAddress('broker-b'), undefined, 'broker-b is gone');
    assert.equal(instance.routes.masterAddress('broker-a'), PROXY);
    assert.deepEqual(removed, [], 'broker-a still uses the address: its connection stays');
    brokers = [];
    await instance.routes.refresh();
    assert.deepEqual(removed, [PROXY], 'the last broker name at the address gone: now it closes');
  } finally {
    await instance.shutdown();
    await ns.close();
  }
});
