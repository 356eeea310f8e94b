import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { invalidArgument } from './invalid-argument.js';
import {
  checkBoolean,
  checkEnum,
  checkInt,
  checkLogger,
  checkPositive,
  checkString,
  closestName,
  editDistance,
  keyList,
  rejectUnknownKeys,
  stripUndefined,
  withDefaults,
} from '../src/options.js';
import { silentLogger } from '../src/observability/logger.js';
import { resolveProducerOptions } from '../src/producer/options.js';
import { validateConnectionOptions } from '../src/remoting/options.js';
import { validateRemotingServerOptions } from '../src/remoting/server.js';
import { validateBrokerOptions } from '../src/server/broker/options.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { validateNameServerOptions } from '../src/server/namesrv/namesrv.js';
import { resolveStoreOptions } from '../src/server/store/options.js';

describe('option validation', () => {
  it('measures edits with adjacent transpositions as one', () => {
    assert.equal(editDistance('tags', 'tags'), 0);
    assert.equal(editDistance('tag', 'tags'), 1);
    assert.equal(editDistance('tgas', 'tags'), 1);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('', 'abc'), 3);
  });

  it('suggests the closest known name, preferring a difference of case, and nothing when far', () => {
    const known = ['sendMsgTimeout', 'retryTimesWhenSendFailed', 'maxMessageSize'];
    assert.equal(closestName('sendMsgTimeOut', known), 'sendMsgTimeout');
    assert.equal(closestName('sendMsgTimout', known), 'sendMsgTimeout');
    assert.equal(closestName('maxMesageSize', known), 'maxMessageSize');
    assert.equal(closestName('compressLevel', known), undefined);
    assert.equal(closestName('tag', ['topic', 'tags', 'keys']), 'tags');
  });

  it('rejects an unknown key naming it and the closest known name', () => {
    const e = invalidArgument(() =>
      rejectUnknownKeys({ sendMsgTimeOut: 1 }, ['sendMsgTimeout', 'namesrvAddr']),
    );
    assert.equal(e.field, 'sendMsgTimeOut');
    assert.match(e.message, /not a known option; did you mean sendMsgTimeout\?/);
    const far = invalidArgument(() => rejectUnknownKeys({ zzz: 1 }, ['sendMsgTimeout']));
    assert.equal(far.field, 'zzz');
    assert.doesNotMatch(far.message, /did you mean/);
    const batch = invalidArgument(() =>
      rejectUnknownKeys({ tag: 'a' }, ['tags'], 'message field', 'messages[1].'),
    );
    assert.equal(batch.field, 'messages[1].tag');
    assert.match(batch.message, /did you mean messages\[1\]\.tags\?/);
    rejectUnknownKeys({ tags: 'a' }, ['tags']);
  });

  it('fills defaults, keeps them for undefined values and rejects unknown keys and non-objects', () => {
    const defaults = Object.freeze({ a: 1, b: 'x' });
    assert.deepEqual(withDefaults(defaults, { a: undefined, b: 'y' }), { a: 1, b: 'y' });
    assert.deepEqual(withDefaults(defaults, undefined), { a: 1, b: 'x' });
    assert.equal(invalidArgument(() => withDefaults(defaults, { c: 1 })).field, 'c');
    assert.equal(invalidArgument(() => withDefaults(defaults, 'a')).field, 'options');
    assert.equal(invalidArgument(() => withDefaults(defaults, null)).field, 'options');
    assert.deepEqual(withDefaults(defaults, { c: 2 }, ['a', 'b', 'c']), { a: 1, b: 'x', c: 2 });
    assert.deepEqual(stripUndefined({ a: undefined, b: 0 }), { b: 0 });
  });

  it('lists every key of a type', () => {
    interface T {
      a: number;
      b?: string;
    }
    assert.deepEqual(keyList<T>({ a: true, b: true }), ['a', 'b']);
  });

  it('checks integers, numbers, booleans, enums, strings and loggers, naming the field', () => {
    assert.equal(checkInt('n', 5, 1, 10), 5);
    for (const bad of [0, 11, 1.5, '5', NaN, undefined])
      assert.equal(invalidArgument(() => checkInt('n', bad, 1, 10)).field, 'n');
    assert.match(invalidArgument(() => checkInt('n', -1, 0)).message, /integer >= 0, got -1/);
    assert.match(invalidArgument(() => checkInt('n', 11, 1, 10)).message, /integer in \[1, 10\], got 11/);
    assert.equal(checkPositive('t', 0.5), 0.5);
    assert.equal(invalidArgument(() => checkPositive('t', 0)).field, 't');
    assert.equal(checkBoolean('b', false), false);
    assert.equal(invalidArgument(() => checkBoolean('b', 'true')).field, 'b');
    assert.equal(checkEnum('e', 'x', ['x', 'y'] as const), 'x');
    assert.match(invalidArgument(() => checkEnum('e', 'z', ['x', 'y'])).message, /one of x, y, got z/);
    assert.equal(checkString('s', 'ab', { maxLength: 2, pattern: /^[a-z]+$/ }), 'ab');
    assert.equal(checkString('s', '', { allowEmpty: true }), '');
    for (const bad of ['', 'abc', 'A1', 7]) {
      assert.equal(
        invalidArgument(() => checkString('s', bad, { maxLength: 2, pattern: /^[a-z]+$/ })).field,
        's',
      );
    }
    assert.equal(checkLogger('logger', silentLogger), silentLogger);
    assert.equal(invalidArgument(() => checkLogger('logger', { warn() {} })).field, 'logger');
  });
});

describe('every options validator rejects a misspelt option, naming the closest one', () => {
  const cases: Array<[string, () => unknown, string, string]> = [
    [
      'producer',
      () => resolveProducerOptions({ namesrvAddr: '127.0.0.1:9876', retryTimesWhenSendFailled: 1 } as never),
      'retryTimesWhenSendFailled',
      'retryTimesWhenSendFailed',
    ],
    ['broker', () => validateBrokerOptions({ brokerNmae: 'b' } as never), 'brokerNmae', 'brokerName'],
    [
      'store',
      () => resolveStoreOptions({ dataDir: '/tmp/x', segmentsize: 4096 } as never),
      'segmentsize',
      'segmentSize',
    ],
    ['NameServer', () => validateNameServerOptions({ listenport: 0 } as never), 'listenport', 'listenPort'],
    [
      'connection',
      () => validateConnectionOptions({ maxInflight: 1 } as never),
      'maxInflight',
      'maxInFlight',
    ],
    ['remoting server', () => validateRemotingServerOptions({ prot: 0 } as never), 'prot', 'port'],
  ];
  for (const [name, fn, field, hint] of cases) {
    it(name, () => {
      const e = invalidArgument(fn);
      assert.equal(e.field, field);
      assert.ok(e.message.endsWith(`did you mean ${hint}?`), e.message);
    });
  }

  it('embedded cluster', async () => {
    await assert.rejects(
      EmbeddedCluster.start({ broker: 1 } as never),
      (e: unknown) =>
        e instanceof Error && /broker: is not a known option; did you mean brokers\?/.test(e.message),
    );
  });
});
