/** OpaqueTable behaves as a Map of opaques under adds, removals, collisions, growth and wrap-around. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OpaqueTable } from '../../src/remoting/opaque-table.js';

function sorted<V>(entries: Iterable<[number, V]>): Array<[number, V]> {
  return [...entries].sort((a, b) => a[0] - b[0]);
}

describe('OpaqueTable', () => {
  it('matches a Map under random requests and answers, including keys that share a home slot', () => {
    const table = new OpaqueTable<string>();
    const model = new Map<number, string>();
    let s = 7;
    const next = (): number => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s;
    };
    let opaque = 2147483000; // wraps to negative, as Java's counter does
    for (let step = 0; step < 50_000; step++) {
      const r = next() % 10;
      if (r < 5 || model.size === 0) {
        // Consecutive opaques, and now and then one 64 or 128 apart (same home slot).
        const key = r === 0 ? (opaque + 128 * (1 + (next() % 4))) | 0 : (opaque = (opaque + 1) | 0);
        table.set(key, `v${key}`);
        model.set(key, `v${key}`);
      } else {
        const keys = [...model.keys()];
        const key = keys[next() % keys.length] as number;
        assert.equal(table.delete(key), true);
        model.delete(key);
        assert.equal(table.delete(key), false);
      }
      assert.equal(table.size, model.size);
      if (step % 997 === 0) assert.deepEqual(sorted(table), sorted(model));
      const probe = (opaque - (next() % 200)) | 0;
      assert.equal(table.get(probe), model.get(probe));
      assert.equal(table.has(probe), model.has(probe));
    }
  });

  it('grows past its first capacity and keeps every entry; clear empties it', () => {
    const table = new OpaqueTable<number>();
    for (let k = -500; k < 500; k++) table.set(k, k * 2);
    assert.equal(table.size, 1000);
    for (let k = -500; k < 500; k++) assert.equal(table.get(k), k * 2);
    assert.deepEqual([...table.values()].sort((a, b) => a - b)[0], -1000);
    table.clear();
    assert.equal(table.size, 0);
    assert.equal(table.get(0), undefined);
  });

  it('deleting while iterating visits every entry once', () => {
    const table = new OpaqueTable<number>();
    for (let k = 0; k < 100; k++) table.set(k, k);
    const seen: number[] = [];
    for (const [k] of table) {
      seen.push(k);
      table.delete(k);
    }
    assert.equal(seen.length, 100);
    assert.equal(table.size, 0);
  });
});
