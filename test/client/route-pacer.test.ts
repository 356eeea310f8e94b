import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { RoutePacer, type PacedRoutes } from '../../src/client/route-pacer.js';
import { silentLogger } from '../../src/observability/logger.js';
import { waitFor } from '../producer/cluster-helpers.js';

function fakeRoutes(topics: string[], latencyMs = 1) {
  const log: { topic: string; at: number }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let passesEnded = 0;
  const routes: PacedRoutes = {
    beginPass: () => [...topics],
    endPass: () => {
      passesEnded++;
    },
    refreshTopic: async (topic) => {
      log.push({ topic, at: Date.now() });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, latencyMs));
      inFlight--;
      return true;
    },
  };
  return { routes, log, maxInFlight: () => maxInFlight, passesEnded: () => passesEnded };
}

describe('RoutePacer', () => {
  it('a pass spreads its topics over the interval, one request at a time, once per topic', async () => {
    const topics = Array.from({ length: 20 }, (_, i) => `T${i}`);
    const f = fakeRoutes(topics);
    const pacer = new RoutePacer(f.routes, {
      pollNameServerInterval: 400,
      mqClientApiTimeout: 1000,
      logger: silentLogger,
    });
    try {
      pacer.start();
      await waitFor(() => f.passesEnded() >= 1, 5000, 'one pass');
      const pass = f.log.slice(0, 20);
      assert.deepEqual(
        pass.map((r) => r.topic),
        topics,
      );
      // Spread, not a burst: 20 topics over a 400 ms interval are 20 ms apart at the least.
      const span = (pass[19]?.at ?? 0) - (pass[0]?.at ?? 0);
      assert.ok(span >= 19 * 20 * 0.9, `the pass spanned ${span} ms`);
      assert.equal(f.maxInFlight(), 1);
    } finally {
      pacer.stop();
    }
  });

  it('urgent topics go ahead of the scheduled ones and resolve when refreshed', async () => {
    const f = fakeRoutes(['A', 'B']);
    const pacer = new RoutePacer(f.routes, {
      pollNameServerInterval: 60_000,
      mqClientApiTimeout: 1000,
      logger: silentLogger,
    });
    try {
      pacer.start();
      await pacer.urgent(['B', 'A', 'B']);
      assert.deepEqual(
        f.log.map((r) => r.topic),
        ['B', 'A'],
        'each urgent topic once, nothing scheduled yet (the first pass is an interval away)',
      );
      pacer.stop();
      await pacer.urgent(['A']); // stopped: resolves at once, asks nothing
      assert.equal(f.log.length, 2);
    } finally {
      pacer.stop();
    }
  });
});
