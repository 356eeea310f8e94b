/** The Broker and NameServer take the remoting server's limits as `serverLimits`. */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidArgumentError } from '../../../src/errors.js';
import { validateBrokerOptions } from '../../../src/server/broker/options.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { validateNameServerOptions } from '../../../src/server/namesrv/namesrv.js';
import { closedWithin, rawConnect } from '../../remoting/helpers.js';

test('serverLimits is validated on both servers: unknown keys and bad values name the field', () => {
  for (const validate of [validateBrokerOptions, validateNameServerOptions] as const) {
    assert.throws(
      () => validate({ serverLimits: { maxConection: 1 } as never }),
      (err: unknown) =>
        err instanceof InvalidArgumentError && /did you mean serverLimits.maxConnections/.test(err.message),
    );
    assert.throws(
      () => validate({ serverLimits: { maxConnections: 0 } }),
      (err: unknown) => err instanceof InvalidArgumentError && err.field === 'maxConnections',
    );
  }
});

test('an embedded broker and NameServer close idle connections after their serverChannelMaxIdleTimeSeconds', async () => {
  const limits = { serverChannelMaxIdleTimeSeconds: 0.2 };
  const cluster = await EmbeddedCluster.start({
    brokers: 1,
    brokerOptions: { serverLimits: limits },
    namesrvOptions: { serverLimits: limits },
  });
  try {
    for (const addr of [cluster.brokers[0]!.addr, cluster.namesrvAddr]) {
      const socket = await rawConnect(Number(addr.split(':')[1]));
      assert.equal(await closedWithin(socket, 5000), true, `${addr} closed the idle connection`);
      socket.destroy();
    }
  } finally {
    await cluster.stop();
  }
});
