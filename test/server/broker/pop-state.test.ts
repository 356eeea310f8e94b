import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../src/observability/logger.js';
import { PopState, type PopCheckpoint } from '../../../src/server/broker/pop/pop-state.js';

function checkpoint(startOffset: number, popTime: number, invisibleTime: number): PopCheckpoint {
  return {
    group: 'g',
    topic: 't',
    queueId: 0,
    startOffset,
    popTime,
    invisibleTime,
    reviveQid: 0,
    offsets: [startOffset],
    acked: [],
  };
}

test('PopState.expiredCheckpoints: each checkpoint once it is due, however the checkpoints come and go', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pop-state-'));
  const state = new PopState(join(dir, 'pop.json'), silentLogger);
  try {
    const late = checkpoint(0, 1000, 5000); // due at 6000
    const early = checkpoint(1, 1000, 1000); // due at 2000
    state.addCheckpoint(late);
    state.addCheckpoint(early);
    assert.deepEqual(state.expiredCheckpoints(1500), []);
    assert.deepEqual(state.expiredCheckpoints(2000), [early]);
    // Not removed by the caller (its revive failed): found again by the next round.
    assert.deepEqual(state.expiredCheckpoints(2500), [early]);
    state.removeCheckpoint(early);
    assert.deepEqual(state.expiredCheckpoints(3000), []);
    // Added after a round raised the bound, due before it.
    const sooner = checkpoint(2, 3000, 500); // due at 3500
    state.addCheckpoint(sooner);
    assert.deepEqual(state.expiredCheckpoints(3500), [sooner]);
    state.removeCheckpoint(sooner);
    assert.deepEqual(state.expiredCheckpoints(5999), []);
    assert.deepEqual(state.expiredCheckpoints(6000), [late]);
  } finally {
    await state.settled();
    await rm(dir, { recursive: true, force: true });
  }
});

test('PopState.ackAll: acks the offsets with one change and drops a checkpoint acked whole', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pop-state-'));
  const state = new PopState(join(dir, 'pop.json'), silentLogger);
  try {
    const ck = { ...checkpoint(10, 1000, 60_000), offsets: [10, 11, 12] };
    state.addCheckpoint(ck);
    state.ackAll(ck, [10, 12]);
    assert.equal(state.inflight, 1);
    assert.equal(state.findCheckpoint('g', 't', 0, 10, 1000), ck);
    state.ackAll(ck, [11]);
    assert.equal(state.inflight, 0);
    assert.equal(state.findCheckpoint('g', 't', 0, 10, 1000), undefined);
  } finally {
    await state.settled();
    await rm(dir, { recursive: true, force: true });
  }
});
