import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  PropertyKey,
  decodeProperties,
  encodeProperties,
  getProperty,
} from '../../src/protocol/message/properties.js';

describe('message properties string (§4.1)', () => {
  it('encodes 4.9.7 style without a trailing separator', () => {
    assert.equal(encodeProperties({ TAGS: 'TagA', KEYS: 'k1' }), 'TAGS\u0001TagA\u0002KEYS\u0001k1');
    assert.equal(encodeProperties({}), '');
  });

  it('skips null/undefined values', () => {
    const props = { A: 'x', B: undefined as unknown as string, C: 'y' };
    assert.equal(encodeProperties(props), 'A\u0001x\u0002C\u0001y');
  });

  it('round trips', () => {
    const props = {
      [PropertyKey.UNIQ_KEY]: '7F0000010001000000000000000000AA',
      WAIT: 'true',
      TAGS: 'TagA',
      中文: 'ü',
    };
    assert.deepEqual(decodeProperties(encodeProperties(props)), props);
  });

  it('tolerates the 5.x trailing separator', () => {
    assert.deepEqual(decodeProperties('TAGS\u0001A\u0002WAIT\u0001true\u0002'), { TAGS: 'A', WAIT: 'true' });
  });

  it('ignores segments shorter than 3 chars, empty keys and empty values', () => {
    assert.deepEqual(decodeProperties('A\u0001\u0002\u0001xy\u0002ab\u0002K\u0001v\u0002\u0002'), { K: 'v' });
    assert.deepEqual(decodeProperties('noseparator\u0002K\u0001v'), { K: 'v' });
  });

  it('splits on the first U+0001 only', () => {
    assert.deepEqual(decodeProperties('K\u0001a\u0001b'), { K: 'a\u0001b' });
  });

  it('lets the last duplicate win', () => {
    assert.deepEqual(decodeProperties('K\u00011\u0002K\u00012'), { K: '2' });
    assert.equal(getProperty('K\u00011\u0002K\u00012', 'K'), '2');
  });

  it('getProperty finds exact names only', () => {
    const s = 'KEYS\u0001k1 k2\u0002KEY\u0001x\u0002TAGS\u0001A';
    assert.equal(getProperty(s, 'KEYS'), 'k1 k2');
    assert.equal(getProperty(s, 'KEY'), 'x');
    assert.equal(getProperty(s, 'TAGS'), 'A');
    assert.equal(getProperty(s, 'TAG'), undefined);
    assert.equal(getProperty(s, 'UNIQ_KEY'), undefined);
    assert.equal(getProperty('K\u0001', 'K'), undefined);
  });
});
