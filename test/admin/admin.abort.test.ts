/**
 * Admin calls with `{ signal }` against an embedded cluster: a bad signal is an
 * InvalidArgumentError, an aborted one rejects before anything is sent, and a call aborted while
 * a broker hangs rejects at once with its request gone from the connection; the next call works.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getEventListeners } from 'node:events';
import { Admin } from '../../src/admin/admin.js';
import type { AdminContext } from '../../src/admin/admin-context.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { AbortError } from '../../src/errors/abort.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../src/server/cluster.js';
import { countRequests, pendingRequests } from '../helpers/request-counter.js';
import { waitFor } from '../consumer/helpers.js';

function aborted(): AbortSignal {
  const c = new AbortController();
  c.abort();
  return c.signal;
}

/** Requests waiting on the admin client's connections. */
const pending = (admin: Admin): number =>
  pendingRequests((admin as unknown as { ctx: AdminContext }).ctx.instance.pool);

describe('admin calls with an AbortSignal', () => {
  let cluster: EmbeddedCluster;
  let admin: Admin;

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, faultInjection: true });
    admin = new Admin({ namesrvAddr: cluster.namesrvAddr });
  });
  after(async () => {
    cluster.broker('broker-a').faults.clear();
    await admin.close();
    await cluster.stop();
  });

  it('a signal that is not an AbortSignal is an InvalidArgumentError', async () => {
    await assert.rejects(admin.clusterInfo({ signal: 42 as unknown as AbortSignal }), InvalidArgumentError);
    await assert.rejects(admin.topics('x' as unknown as object), InvalidArgumentError);
  });

  it('aborted before the call: NameServer and broker calls send nothing', async () => {
    const counter = countRequests([RequestCode.GET_BROKER_CLUSTER_INFO, RequestCode.GET_BROKER_RUNTIME_INFO]);
    try {
      const signal = aborted();
      await assert.rejects(admin.clusterInfo({ signal }), AbortError);
      await assert.rejects(admin.brokerRuntimeStats('broker-a', { signal }), AbortError);
      await assert.rejects(admin.consumerProgress('G', undefined, { signal }), AbortError);
      assert.equal(counter.count(), 0);
    } finally {
      counter.stop();
    }
  });

  it('aborted while the broker hangs: rejects at once, leaves no request, the next call works', async () => {
    const broker = cluster.broker('broker-a');
    await admin.brokerRuntimeStats('broker-a');
    broker.faults.set({ hang: true, requestCodes: [RequestCode.GET_BROKER_RUNTIME_INFO] });
    const counter = countRequests([RequestCode.GET_BROKER_RUNTIME_INFO]);
    try {
      const controller = new AbortController();
      const asking = admin.brokerRuntimeStats('broker-a', { signal: controller.signal });
      await waitFor(() => counter.count() === 1, 'the request on the wire');
      controller.abort();
      await assert.rejects(asking, AbortError);
      assert.equal(pending(admin), 0);
      assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    } finally {
      broker.faults.clear();
      counter.stop();
    }
    const stats = await admin.brokerRuntimeStats('broker-a');
    assert.ok(Object.keys(stats).length > 0);
  });

  it('a NameServer call with a signal that never aborts settles and removes its listener', async () => {
    const { signal } = new AbortController();
    const info = await admin.clusterInfo({ signal });
    assert.ok(Object.keys(info.brokers ?? info).length > 0);
    assert.equal(getEventListeners(signal, 'abort').length, 0);
  });
});
