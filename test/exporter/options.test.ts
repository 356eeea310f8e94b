/** The collector's and the headless exporter's options: unknown keys, a missing Admin, bad numbers. */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admin } from '../../src/admin/admin.js';
import { InvalidArgumentError } from '../../src/errors.js';
import { ClusterCollector } from '../../src/exporter/collector.js';
import { MetricsServer } from '../../src/exporter/metrics-server.js';
import { DEFAULT_CLUSTER_COLLECTOR_OPTIONS } from '../../src/exporter/options.js';

test('ClusterCollector options: defaults, a misspelt key, no Admin, a bad timeout', async () => {
  const admin = new Admin({ namesrvAddr: '127.0.0.1:9876' });
  try {
    const c = new ClusterCollector({ admin });
    assert.equal(c.options.scrapeTimeoutMs, DEFAULT_CLUSTER_COLLECTOR_OPTIONS.scrapeTimeoutMs);
    assert.throws(
      () => new ClusterCollector({ admin, scrapeTimeoutMS: 5 } as never),
      (e: unknown) => e instanceof InvalidArgumentError && /scrapeTimeoutMs/.test(e.message),
    );
    assert.throws(() => new ClusterCollector({} as never), InvalidArgumentError);
    assert.throws(() => new ClusterCollector({ admin, scrapeTimeoutMs: 0 }), InvalidArgumentError);
    assert.throws(() => new ClusterCollector({ admin, concurrency: 1.5 }), InvalidArgumentError);
  } finally {
    await admin.close();
  }
});

test('MetricsServer options: a misspelt key, a bad port, no NameServer', () => {
  assert.throws(
    () => new MetricsServer({ namesrvAddr: '127.0.0.1:9876', prot: 1 } as never),
    InvalidArgumentError,
  );
  assert.throws(
    () => new MetricsServer({ namesrvAddr: '127.0.0.1:9876', port: 70_000 }),
    InvalidArgumentError,
  );
  const saved = process.env['NAMESRV_ADDR'];
  delete process.env['NAMESRV_ADDR'];
  try {
    assert.throws(() => new MetricsServer({}), InvalidArgumentError);
  } finally {
    if (saved !== undefined) process.env['NAMESRV_ADDR'] = saved;
  }
});
