import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from '../../src/errors.js';
import { PermName, isInherited, isReadable, isWriteable, permToString } from '../../src/protocol/perm.js';
import {
  NOT_ALLOWED_SEND_TOPICS,
  checkBody,
  checkGroup,
  checkSendTopic,
  checkTopic,
  checkUserProperty,
  hasIllegalTopicChars,
  isSystemPropertyName,
  isSystemTopic,
  validateTopic,
} from '../../src/protocol/validation.js';

describe('topic validation', () => {
  it('accepts the allowed alphabet up to 127 chars', () => {
    assert.equal(checkTopic('TopicTest'), undefined);
    assert.equal(checkTopic('%RETRY%cg|a-b_c09'), undefined);
    assert.equal(checkTopic('a'.repeat(127)), undefined);
  });

  it('rejects blank, too long, illegal characters and non-strings', () => {
    assert.match(checkTopic('')!, /blank/);
    assert.match(checkTopic('   ')!, /blank/);
    assert.match(checkTopic('a'.repeat(128))!, /longer/);
    for (const bad of ['a b', 'a.b', 'a/b', 'тема', 'a\u0001', 'a:b', 'a*']) {
      assert.match(checkTopic(bad)!, /illegal characters/, bad);
    }
    assert.ok(checkTopic(undefined));
    assert.ok(checkTopic(42));
    assert.throws(() => validateTopic('a b'), InvalidArgumentError);
    assert.doesNotThrow(() => validateTopic('ok'));
  });

  it('agrees with the documented regex on every ASCII character', () => {
    const re = /^[%|a-zA-Z0-9_-]+$/;
    for (let c = 0; c < 256; c++) {
      const s = `a${String.fromCharCode(c)}`;
      assert.equal(hasIllegalTopicChars(s), !re.test(s), `char ${c}`);
    }
  });

  it('forbids sending to the internal topics', () => {
    assert.deepEqual([...NOT_ALLOWED_SEND_TOPICS].sort(), [
      'OFFSET_MOVED_EVENT',
      'RMQ_SYS_TRANS_HALF_TOPIC',
      'RMQ_SYS_TRANS_OP_HALF_TOPIC',
      'SCHEDULE_TOPIC_XXXX',
      'SELF_TEST_TOPIC',
      'TRANS_CHECK_MAX_TIME_TOPIC',
    ]);
    assert.equal(
      checkSendTopic('SCHEDULE_TOPIC_XXXX'),
      'Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.',
    );
    assert.equal(checkSendTopic('TBW102'), undefined);
  });

  it('system topics: the named set and the rmq_sys_ prefix', () => {
    for (const t of [
      'TBW102',
      'BenchmarkTest',
      'RMQ_SYS_TRACE_TOPIC',
      'SCHEDULE_TOPIC_XXXX',
      'rmq_sys_wheel_timer',
    ]) {
      assert.ok(isSystemTopic(t), t);
    }
    for (const t of ['TopicTest', '%RETRY%g', 'RMQ_SYS_x']) assert.ok(!isSystemTopic(t), t);
  });

  it('groups', () => {
    assert.equal(checkGroup('CG'), undefined);
    assert.ok(checkGroup('g'.repeat(121)));
    assert.ok(checkGroup('a b'));
  });
});

describe('property and body validation', () => {
  it('reserved names', () => {
    for (const n of ['KEYS', 'TAGS', 'UNIQ_KEY', 'WAIT', 'DELAY', '__CRC32#', 'TIMER_DELIVER_MS'])
      assert.ok(isSystemPropertyName(n), n);
    for (const n of ['myKey', 'keys', '__transactionId__']) assert.ok(!isSystemPropertyName(n), n);
  });

  it('user properties', () => {
    assert.equal(checkUserProperty('color', 'red'), undefined);
    assert.ok(checkUserProperty('', 'x'));
    assert.ok(checkUserProperty('x', ''));
    assert.ok(checkUserProperty('a\u0001b', 'x'));
    assert.ok(checkUserProperty('x', 'a\u0002b'));
    assert.match(checkUserProperty('TAGS', 'x')!, /used by system/);
  });

  it('bodies', () => {
    assert.equal(checkBody(Buffer.from('x')), undefined);
    assert.ok(checkBody(undefined));
    assert.ok(checkBody(Buffer.alloc(0)));
    assert.ok(checkBody(Buffer.alloc(11), 10));
    assert.equal(checkBody(Buffer.alloc(10), 10), undefined);
  });
});

describe('permissions (§7.4)', () => {
  it('bits', () => {
    assert.ok(isReadable(6) && isWriteable(6) && !isInherited(6));
    assert.ok(isInherited(7));
    assert.ok(!isWriteable(PermName.PERM_READ));
    assert.equal(permToString(7), 'RWX');
    assert.equal(permToString(4), 'R--');
  });
});
