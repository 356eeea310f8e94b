import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { MasterWatch, type MasterWatchEnd, type WatchedRoutes } from '../../src/client/master-watch.js';
import { silentLogger } from '../../src/observability/logger.js';
import { waitFor } from '../producer/cluster-helpers.js';

/** A route table the test edits: brokerName → master address (undefined: no master), per topic. */
class FakeRoutes implements WatchedRoutes {
  /** What the NameServer would answer now. */
  ns = new Map<string, string | undefined>();
  /** What the client has cached (copied from `ns` on refresh). */
  cachedMaster = new Map<string, string | undefined>();
  topics = ['T1', 'T2', 'T3'];
  topicsOnBroker(): string[] {
    return [...this.topics];
  }
  masterAddress(b: string): string | undefined {
    return this.cachedMaster.get(b);
  }
  masterInRoute(_topic: string, b: string): string | undefined {
    return this.cachedMaster.get(b);
  }
  brokerTable(): ReadonlyMap<string, ReadonlyMap<number, string>> {
    const out = new Map<string, Map<number, string>>();
    for (const [b, a] of this.cachedMaster) if (a !== undefined) out.set(b, new Map([[0, a]]));
    return out;
  }
}

function setup(over: { maxMs?: number; clock?: () => number } = {}) {
  const routes = new FakeRoutes();
  routes.ns.set('g', '127.0.0.1:1');
  routes.cachedMaster.set('g', '127.0.0.1:1');
  const calls: string[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const refresh = async (topics: readonly string[]): Promise<void> => {
    calls.push([...topics]);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise((r) => setTimeout(r, 2));
    routes.cachedMaster.set('g', routes.ns.get('g'));
    inFlight--;
  };
  const ends: { why: MasterWatchEnd; rounds: number }[] = [];
  const watch = new MasterWatch(routes, refresh, {
    intervalMs: 10,
    logger: silentLogger,
    maxMs: over.maxMs ?? 60_000,
    clock: over.clock,
  });
  watch.onEnd = (_b, why, rounds) => ends.push({ why, rounds });
  return { routes, calls, watch, ends, maxInFlight: () => maxInFlight };
}

describe('MasterWatch', () => {
  it('a lost master: one topic refreshed at once, then every ~interval until a new master registers; then every topic', async () => {
    const t = setup();
    try {
      t.watch.masterUnreachable('127.0.0.1:1');
      assert.deepEqual(t.calls, [['T1']], 'the first refresh starts at once');
      assert.deepEqual(t.watch.watching(), ['g']);
      t.watch.masterUnreachable('127.0.0.1:1'); // a second failure does not start a second watch
      await waitFor(() => t.calls.length >= 4, 2000, 'rounds');
      assert.ok(t.ends.length === 0, 'still no master: still watching');
      t.routes.ns.set('g', '127.0.0.1:2'); // the new leader registered
      await waitFor(() => t.ends.length === 1, 2000, 'end');
      assert.equal(t.ends[0]?.why, 'new-master');
      await waitFor(() => t.calls.some((c) => c.length === 2), 2000, 'the other topics refreshed');
      const rounds = t.calls.filter((c) => c.length === 1).map((c) => c[0]);
      assert.deepEqual(rounds.slice(0, 4), ['T1', 'T2', 'T3', 'T1'], 'one topic per round, in turn');
      assert.equal(t.maxInFlight(), 1, 'one request in flight');
      assert.equal(t.watch.active, false);
    } finally {
      t.watch.stop();
    }
  });

  it('a group that lost its master and came back at the same address (restart in place) ends the watch', async () => {
    const t = setup();
    try {
      t.routes.ns.set('g', undefined);
      t.watch.masterUnreachable('127.0.0.1:1');
      await waitFor(() => t.calls.length >= 2, 2000, 'rounds');
      t.routes.ns.set('g', '127.0.0.1:1');
      await waitFor(() => t.ends.length === 1, 2000, 'end');
      assert.equal(t.ends[0]?.why, 'new-master');
    } finally {
      t.watch.stop();
    }
  });

  it('the old master answering again ends the watch; an address that is no master starts none', async () => {
    const t = setup();
    try {
      t.watch.masterUnreachable('127.0.0.1:9');
      assert.equal(t.watch.active, false, 'not a master: nothing to watch');
      t.watch.masterUnreachable('127.0.0.1:1');
      t.watch.answered('127.0.0.1:1');
      assert.deepEqual(t.ends, [{ why: 'answered', rounds: 1 }]);
    } finally {
      t.watch.stop();
    }
  });

  it('the watch is bounded: it gives up after maxMs without a master', async () => {
    let now = 1_000_000;
    const t = setup({ maxMs: 5000, clock: () => now });
    try {
      t.routes.ns.set('g', undefined);
      t.watch.masterUnreachable('127.0.0.1:1');
      await waitFor(() => t.calls.length >= 2, 2000, 'rounds');
      now += 5000;
      await waitFor(() => t.ends.length === 1, 2000, 'end');
      assert.equal(t.ends[0]?.why, 'gave-up');
      const n = t.calls.length;
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(t.calls.length, n, 'no refresh after giving up');
    } finally {
      t.watch.stop();
    }
  });
});
