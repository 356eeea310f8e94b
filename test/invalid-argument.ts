/** Test helper: the InvalidArgumentError a call throws, for assertions on its field and message. */
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../src/errors.js';

export function invalidArgument(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    return err;
  }
  assert.fail('expected InvalidArgumentError');
}
