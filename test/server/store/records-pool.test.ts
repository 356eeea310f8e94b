/**
 * The records pool hands a written batch's buffer to the next batch: only its own buffers, once,
 * and never one still handed out.
 */
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { acquireRecordsBuffer, releaseRecordsBuffer } from '../../../src/server/store/records-pool.js';

test('a released buffer serves the next request of its size class; foreign, repeated and huge ones are not taken back', () => {
  const a = acquireRecordsBuffer(5000);
  assert.equal(a.length, 5000);
  assert.equal(a.buffer.byteLength, 8192, 'power-of-two class');
  const b = acquireRecordsBuffer(6000);
  assert.notEqual(b.buffer, a.buffer, 'a buffer in use is never handed out twice');
  releaseRecordsBuffer(a);
  releaseRecordsBuffer(a.subarray(0, 10)); // the same buffer again, through another view
  const c = acquireRecordsBuffer(8192);
  assert.equal(c.buffer, a.buffer, 'reused');
  assert.equal(c.length, 8192);
  const d = acquireRecordsBuffer(7000);
  assert.notEqual(d.buffer, a.buffer, 'released twice, still handed out once');
  assert.notEqual(d.buffer, b.buffer);

  const foreign = Buffer.alloc(8192);
  releaseRecordsBuffer(foreign);
  const e = acquireRecordsBuffer(8000);
  assert.notEqual(e.buffer, foreign.buffer, 'a buffer the pool did not make is not pooled');

  const huge = acquireRecordsBuffer(8 * 1024 * 1024);
  releaseRecordsBuffer(huge);
  assert.notEqual(
    acquireRecordsBuffer(8 * 1024 * 1024).buffer,
    huge.buffer,
    'past the largest class: not pooled',
  );
  for (const buf of [b, c, d, e]) releaseRecordsBuffer(buf);
});
