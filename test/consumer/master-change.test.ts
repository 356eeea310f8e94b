import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { RouteUpdatedEvent } from '../../src/client/route-lookup.js';
import { watchMasterChanges } from '../../src/consumer/core/master-change.js';

class FakeRoutes extends EventEmitter {
  masters = new Map<string, string>();
  masterAddress(name: string): string | undefined {
    return this.masters.get(name);
  }
  update(topic: string): void {
    const event: RouteUpdatedEvent = { topic, brokers: [...this.masters.keys()], fromDefaultTopic: false };
    this.emit('routeUpdated', event);
  }
}

describe('watchMasterChanges', () => {
  it('reports a new master, a lost master and a returning one for subscribed topics only', () => {
    const routes = new FakeRoutes();
    const changed: string[] = [];
    const stop = watchMasterChanges(
      routes,
      (t) => t === 'T',
      (t) => changed.push(t),
    );
    routes.masters.set('g', '127.0.0.1:1');
    routes.update('T');
    routes.update('other');
    assert.deepEqual(changed, [], 'the first route is no change');
    routes.update('T');
    assert.deepEqual(changed, [], 'same masters');
    routes.masters.set('g', '127.0.0.1:2');
    routes.update('T');
    routes.update('other');
    assert.deepEqual(changed, ['T'], 'a DLedger leader moved');
    routes.masters.delete('g');
    routes.update('T');
    routes.masters.set('g', '127.0.0.1:2');
    routes.update('T');
    assert.deepEqual(changed, ['T', 'T', 'T'], 'gone, then back');
    stop();
    routes.masters.set('g', '127.0.0.1:3');
    routes.update('T');
    assert.equal(changed.length, 3, 'no calls after stop');
    assert.equal(routes.listenerCount('routeUpdated'), 0);
  });
});
