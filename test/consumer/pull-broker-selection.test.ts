import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PullBrokerSelection, UNREACHABLE_AVOID_MS } from '../../src/consumer/core/pull-broker-selection.js';

const MASTER = '127.0.0.1:10911';
const SLAVE = '127.0.0.1:10921';
const SLAVE2 = '127.0.0.1:10931';

function setup(groups: Record<string, Record<number, string>>) {
  let now = 1_000_000;
  const table = new Map(
    Object.entries(groups).map(([name, ids]) => [
      name,
      new Map(Object.entries(ids).map(([id, a]) => [Number(id), a])),
    ]),
  );
  const sel = new PullBrokerSelection(
    (name) => table.get(name),
    UNREACHABLE_AVOID_MS,
    () => now,
  );
  return { sel, table, advance: (ms: number) => (now += ms) };
}

describe('PullBrokerSelection', () => {
  it('pulls from the master until the broker suggests a slave, then from that slave without commit', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE } });
    assert.deepEqual(sel.target('q1', 'b'), { brokerName: 'b', address: MASTER, brokerId: 0, slave: false });
    sel.suggest('q1', 1);
    assert.deepEqual(sel.target('q1', 'b'), { brokerName: 'b', address: SLAVE, brokerId: 1, slave: true });
    // Per queue: another queue of the same group stays on the master.
    assert.equal(sel.target('q2', 'b')?.address, MASTER);
    sel.suggest('q1', 0);
    assert.equal(sel.target('q1', 'b')?.address, MASTER);
  });

  it('falls back to the master when the suggested slave is not in the route', () => {
    const { sel } = setup({ b: { 0: MASTER } });
    sel.suggest('q', 2);
    assert.deepEqual(sel.target('q', 'b'), { brokerName: 'b', address: MASTER, brokerId: 0, slave: false });
  });

  it('a slave that fails sends the queue back to the master at once', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE } });
    sel.suggest('q', 1);
    const slave = sel.target('q', 'b')!;
    assert.equal(sel.failed('q', 'b', slave), true, 'the master can be tried right away');
    assert.equal(sel.target('q', 'b')?.address, MASTER);
    // Even when the master suggests the slave again, it is skipped while avoided.
    sel.suggest('q', 1);
    assert.equal(sel.target('q', 'b')?.address, MASTER);
  });

  it('a dead master lets the queue read from a slave meanwhile, and the master is tried again later', () => {
    const { sel, advance } = setup({ b: { 0: MASTER, 2: SLAVE2, 1: SLAVE } });
    const master = sel.target('q', 'b')!;
    assert.equal(sel.failed('q', 'b', master), true);
    assert.deepEqual(
      sel.target('q', 'b'),
      { brokerName: 'b', address: SLAVE, brokerId: 1, slave: true },
      'lowest slave id first',
    );
    advance(UNREACHABLE_AVOID_MS - 1);
    assert.equal(sel.target('q', 'b')?.address, SLAVE);
    advance(1);
    assert.equal(sel.target('q', 'b')?.address, MASTER);
  });

  it('when every member failed, selection still returns an address and reports no alternative', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE } });
    assert.equal(sel.failed('q', 'b', sel.target('q', 'b')!), true);
    const slave = sel.target('q', 'b')!;
    assert.equal(slave.address, SLAVE);
    assert.equal(sel.failed('q', 'b', slave), false, 'nobody left: the caller waits');
    assert.equal(sel.target('q', 'b')?.address, MASTER, 'falls back to the master');
  });

  it('an answer clears the avoidance; a group without addresses has no target', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE }, empty: {} });
    const master = sel.target('q', 'b')!;
    sel.failed('q', 'b', master);
    sel.answered(master);
    assert.equal(sel.target('q', 'b')?.address, MASTER);
    assert.equal(sel.target('q', 'empty'), undefined);
    assert.equal(sel.target('q', 'unknown'), undefined);
  });

  it('a suggestion that leads back to the member that made it reports "stuck"', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE } });
    const master = sel.target('q', 'b')!;
    sel.failed('q', 'b', master);
    const slave = sel.target('q', 'b')!;
    assert.equal(slave.address, SLAVE);
    // The lagging slave says "master", but the master is avoided: the next pull would be the slave again.
    assert.equal(sel.suggest('q', 0, slave), true);
    sel.answered(master);
    assert.equal(sel.suggest('q', 0, slave), false, 'the master can be followed again');
    assert.equal(sel.suggest('q', 1, slave), false, 'staying where suggested is no loop');
  });

  it('forget drops the suggestion of a queue no longer held', () => {
    const { sel } = setup({ b: { 0: MASTER, 1: SLAVE } });
    sel.suggest('q', 1);
    sel.forget('q');
    assert.equal(sel.target('q', 'b')?.address, MASTER);
  });
});
