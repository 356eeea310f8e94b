import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BLANK_MAGIC_CODE } from '../../../src/protocol/message/stored-message.js';
import { LogAppend } from '../../../src/server/store/commit-log.js';
import { END_FILE_MIN_BLANK_LENGTH } from '../../../src/server/store/recovery.js';

describe('commit-log layout', () => {
  it('keeps records in the current segment while they and the end blank fit', () => {
    const append = new LogAppend(100, 1024);
    append.reserve(1024 - 100 - END_FILE_MIN_BLANK_LENGTH);
    assert.equal(append.pos, 100);
    append.add(Buffer.alloc(50));
    assert.equal(append.pos, 150);
    const writes = append.finish();
    assert.equal(writes.length, 1);
    assert.deepEqual(
      writes.map((w) => [w.offset, w.bytes, w.blank]),
      [[100, 50, false]],
    );
  });

  it('rolls to the next segment behind a blank record when a put would not fit', () => {
    const append = new LogAppend(1000, 1024);
    append.reserve(30);
    assert.equal(append.pos, 1024, 'the record starts the next segment');
    append.add(Buffer.alloc(30));
    const writes = append.finish();
    assert.deepEqual(
      writes.map((w) => [w.offset, w.bytes, w.blank]),
      [
        [1000, 8, true],
        [1024, 30, false],
      ],
    );
    const blank = writes[0]!.parts[0]!;
    assert.equal(blank.readInt32BE(0), 24, 'the blank covers the rest of the segment');
    assert.equal(blank.readInt32BE(4), BLANK_MAGIC_CODE);
  });
});
