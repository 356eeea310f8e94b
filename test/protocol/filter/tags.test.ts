import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { javaStringHashCode } from '../../../src/protocol/java-string-hash.js';
import {
  buildTagSubscription,
  isTagType,
  matchesTagsCode,
  matchesTagText,
} from '../../../src/protocol/filter/tags.js';

describe('tag subscriptions (FilterAPI.buildSubscriptionData)', () => {
  it('javaStringHashCode matches Java String.hashCode (codeSet of a Java heartbeat)', () => {
    assert.equal(javaStringHashCode('TagA'), 2598919);
    assert.equal(javaStringHashCode(''), 0);
    // overflow wraps like Java int arithmetic
    assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  });

  it('reads *, empty, blank and absent expressions as subscribe-all', () => {
    for (const e of ['*', ' * ', '', '  ', undefined, null, ' || '])
      assert.equal(buildTagSubscription(e).all, true, String(e));
  });

  it('splits on ||, trims and drops empty parts; codeSet is the hash of each tag', () => {
    const sub = buildTagSubscription(' TagA || TagB ||');
    assert.equal(sub.all, false);
    assert.deepEqual([...sub.tags], ['TagA', 'TagB']);
    assert.deepEqual([...sub.codes], [2598919, 2598920]);
    assert.ok(matchesTagsCode(sub, javaStringHashCode('TagB')));
    assert.ok(!matchesTagsCode(sub, javaStringHashCode('TagC')));
  });

  it('re-checks the tag text like the client (no TAGS never matches a tag list)', () => {
    const sub = buildTagSubscription('TagA');
    assert.ok(matchesTagText(sub, 'TagA'));
    assert.ok(!matchesTagText(sub, 'TagB'));
    assert.ok(!matchesTagText(sub, undefined));
    assert.ok(matchesTagText(buildTagSubscription('*'), undefined));
  });

  it('treats absent, empty and TAG as the TAG expression type', () => {
    assert.ok(isTagType(undefined) && isTagType('') && isTagType('TAG'));
    assert.ok(!isTagType('SQL92'));
  });
});
