import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { InvalidArgumentError } from '../../src/errors.js';
import { parseNamesrvAddr } from '../../src/client/client-options.js';
import { DEFAULT_RETRY_RESPONSE_CODES, resolveProducerOptions } from '../../src/producer/options.js';

function field(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof InvalidArgumentError, String(err));
    return err.field;
  }
  assert.fail('expected InvalidArgumentError');
}

describe('producer options', () => {
  it('applies Java defaults (and ours where we deviate)', () => {
    const o = resolveProducerOptions({ namesrvAddr: '127.0.0.1:9876' });
    assert.equal(o.producerGroup, 'DEFAULT_PRODUCER');
    assert.equal(o.sendMsgTimeout, 3000);
    assert.equal(o.retryTimesWhenSendFailed, 2);
    assert.equal(o.retryTimesWhenSendAsyncFailed, 2);
    assert.equal(o.retryAnotherBrokerWhenNotStoreOK, false);
    assert.deepEqual(
      [...o.retryResponseCodes].sort((a, b) => a - b),
      [1, 2, 14, 16, 17, 204, 205, 1500],
    );
    assert.equal(o.compressMsgBodyOverHowmuch, 4096);
    assert.equal(o.compressLevel, 5);
    assert.equal(o.maxMessageSize, 4 * 1024 * 1024);
    assert.equal(o.defaultTopicQueueNums, 4);
    assert.equal(o.createTopicKey, 'TBW102');
    assert.equal(o.sendLatencyFaultEnable, true);
    assert.equal(o.latencyFaultStrategy, 'adaptive');
    assert.equal(o.pollNameServerInterval, 30000);
    assert.equal(o.heartbeatBrokerInterval, 30000);
    assert.equal(o.mqClientApiTimeout, 3000);
    assert.equal(o.sendAttemptTimeout, 1000, 'ceil(3000 / 3)');
    assert.equal(o.instanceName, 'DEFAULT');
    assert.equal(o.language, 'JAVA');
  });

  it('parses NameServer lists', () => {
    assert.deepEqual(parseNamesrvAddr('127.0.0.1:1; 127.0.0.1:2;'), ['127.0.0.1:1', '127.0.0.1:2']);
    assert.deepEqual(parseNamesrvAddr(['127.0.0.1:1', '127.0.0.1:1']), ['127.0.0.1:1']);
    assert.equal(
      field(() => parseNamesrvAddr('nohostport')),
      'namesrvAddr',
    );
    assert.equal(
      field(() => parseNamesrvAddr('')),
      'namesrvAddr',
    );
  });

  it('names the offending option', () => {
    const base = { namesrvAddr: '127.0.0.1:9876' };
    assert.equal(
      field(() => resolveProducerOptions({ ...base, sendMsgTimeout: 0 })),
      'sendMsgTimeout',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, sendMsgTimeout: 1.5 })),
      'sendMsgTimeout',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, retryTimesWhenSendFailed: -1 })),
      'retryTimesWhenSendFailed',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, compressLevel: 10 })),
      'compressLevel',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, producerGroup: 'bad group' })),
      'producerGroup',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, latencyFaultStrategy: 'nope' as 'adaptive' })),
      'latencyFaultStrategy',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, latencyMax: [1, 2], notAvailableDuration: [1] })),
      'notAvailableDuration',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, latencyMax: [1] })),
      'notAvailableDuration',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, sendLatencyFaultEnable: 'yes' as unknown as boolean })),
      'sendLatencyFaultEnable',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, instanceName: 'a@b' })),
      'instanceName',
    );
    assert.equal(
      field(() => resolveProducerOptions({ ...base, retryResponseCodes: 5 as unknown as number[] })),
      'retryResponseCodes',
    );
  });

  it('an option the chosen fault strategy does not read is rejected, naming the option and the strategy', () => {
    const base = { namesrvAddr: '127.0.0.1:9876' };
    const message = (fn: () => unknown): string => {
      try {
        fn();
      } catch (err) {
        assert.ok(err instanceof InvalidArgumentError, String(err));
        return `${err.field}: ${err.message}`;
      }
      assert.fail('expected InvalidArgumentError');
    };
    const tables = { latencyMax: [50, 100], notAvailableDuration: [0, 1000] };
    const adaptive = message(() => resolveProducerOptions({ ...base, ...tables }));
    assert.match(adaptive, /^latencyMax: /);
    assert.match(adaptive, /adaptive/);
    assert.match(
      message(() =>
        resolveProducerOptions({ ...base, latencyFaultStrategy: 'java-4.9', detectInterval: 100 }),
      ),
      /^detectInterval: .*java-4\.9/,
    );
    assert.match(
      message(() =>
        resolveProducerOptions({ ...base, latencyFaultStrategy: 'java-4.9', detectTimeout: 100 }),
      ),
      /^detectTimeout: .*java-4\.9/,
    );
    // Where they apply, they are accepted.
    assert.deepEqual(
      resolveProducerOptions({ ...base, latencyFaultStrategy: 'java-4.9', ...tables }).latencyMax,
      [50, 100],
    );
    const j5 = resolveProducerOptions({
      ...base,
      latencyFaultStrategy: 'java-5',
      ...tables,
      detectInterval: 100,
      detectTimeout: 50,
    });
    assert.equal(j5.detectInterval, 100);
    assert.equal(resolveProducerOptions({ ...base, detectInterval: 100 }).detectInterval, 100);
  });

  it('minBrokerShare: a fraction in [0, 1], adaptive only', () => {
    const base = { namesrvAddr: '127.0.0.1:1' };
    assert.equal(resolveProducerOptions(base).minBrokerShare, 0.2);
    assert.equal(resolveProducerOptions({ ...base, minBrokerShare: 0 }).minBrokerShare, 0);
    assert.equal(resolveProducerOptions({ ...base, minBrokerShare: 1 }).minBrokerShare, 1);
    for (const bad of [-0.1, 1.5, Number.NaN, '0.2']) {
      assert.throws(
        () => resolveProducerOptions({ ...base, minBrokerShare: bad as number }),
        (err: unknown) => err instanceof InvalidArgumentError && err.field === 'minBrokerShare',
        String(bad),
      );
    }
    assert.throws(
      () => resolveProducerOptions({ ...base, latencyFaultStrategy: 'java-4.9', minBrokerShare: 0.5 }),
      /minBrokerShare/,
    );
  });

  it('retryResponseCodes replaces the default set; spread the defaults to extend', () => {
    const o = resolveProducerOptions({
      namesrvAddr: '127.0.0.1:1',
      retryResponseCodes: [...DEFAULT_RETRY_RESPONSE_CODES, 215],
    });
    assert.ok(o.retryResponseCodes.has(215) && o.retryResponseCodes.has(2));
  });

  it('sendAttemptTimeout follows the retry count and can be turned off', () => {
    assert.equal(
      resolveProducerOptions({ namesrvAddr: '127.0.0.1:1', retryTimesWhenSendFailed: 0 }).sendAttemptTimeout,
      3000,
    );
    assert.equal(
      resolveProducerOptions({ namesrvAddr: '127.0.0.1:1', sendAttemptTimeout: 0 }).sendAttemptTimeout,
      0,
    );
  });
});
