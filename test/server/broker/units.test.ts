import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  faultSpecFromExtFields,
  faultSpecToExtFields,
  FaultSwitchboard,
} from '../../../src/server/broker/faults.js';
import { applyDelayLevel, parseSocketAddress } from '../../../src/server/broker/message-util.js';
import { parseDelayLevels, validateBrokerOptions } from '../../../src/server/broker/options.js';
import { decodeProperties, encodeProperties } from '../../../src/protocol/message/properties.js';
import { InvalidArgumentError } from '../../../src/errors.js';

describe('broker helpers', () => {
  it('parses delay levels with units and rejects nonsense', () => {
    assert.deepEqual(
      parseDelayLevels('1s 5s 500ms 2m 1h 1d'),
      [1000, 5000, 500, 120_000, 3_600_000, 86_400_000],
    );
    assert.equal(parseDelayLevels('1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h').length, 18);
    assert.throws(() => parseDelayLevels('1s fast'), InvalidArgumentError);
  });

  it('validates broker options with the field name', () => {
    assert.throws(
      () => validateBrokerOptions({ listenPort: 70000 }),
      (e: InvalidArgumentError) => e.field === 'listenPort',
    );
    assert.throws(
      () => validateBrokerOptions({ flushDiskType: 'SOMETIMES' as never }),
      (e: InvalidArgumentError) => e.field === 'flushDiskType',
    );
    assert.equal(validateBrokerOptions({}).defaultTopicQueueNums, 8);
  });

  it('rewrites a DELAY message to SCHEDULE_TOPIC_XXXX (capped at the last level) but not a prepared transaction', () => {
    const base = {
      topic: 'T',
      queueId: 3,
      flag: 0,
      sysFlag: 0,
      bornTimestamp: 0,
      bornHost: { address: '127.0.0.1', port: 1 },
      storeHost: { address: '127.0.0.1', port: 2 },
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
      body: new Uint8Array(0),
      properties: encodeProperties({ DELAY: '99' }),
    };
    const out = applyDelayLevel(base, 18);
    assert.equal(out.topic, 'SCHEDULE_TOPIC_XXXX');
    assert.equal(out.queueId, 17);
    assert.deepEqual(decodeProperties(out.properties), { DELAY: '18', REAL_TOPIC: 'T', REAL_QID: '3' });
    assert.equal(applyDelayLevel({ ...base, sysFlag: 0x4 }, 18).topic, 'T');
    assert.equal(applyDelayLevel({ ...base, properties: '' }, 18).topic, 'T');
  });

  it('parses socket addresses in both families', () => {
    assert.deepEqual(parseSocketAddress('127.0.0.1:5000'), { address: '127.0.0.1', port: 5000 });
    assert.deepEqual(parseSocketAddress('::ffff:127.0.0.1:5000'), { address: '127.0.0.1', port: 5000 });
    assert.deepEqual(parseSocketAddress('[::1]:80'), { address: '::1', port: 80 });
  });

  it('fault specs round-trip through 9901 extFields and decide per request code', () => {
    const spec = {
      latencyMs: [5, 10] as [number, number],
      errorCode: 10,
      errorRate: 0.25,
      requestCodes: [310],
    };
    assert.deepEqual(faultSpecFromExtFields(faultSpecToExtFields(spec)), spec);
    assert.equal(faultSpecFromExtFields({ clear: 'true' }), undefined);
    assert.throws(() => faultSpecFromExtFields({ errorRate: '2' }), InvalidArgumentError);
    const sb = new FaultSwitchboard();
    sb.set({ errorCode: 10 });
    assert.deepEqual(sb.decide(310), { kind: 'error', code: 10, afterStore: true, latencyMs: 0 });
    assert.equal(sb.decide(11).kind, 'none');
    sb.set({ hang: true, requestCodes: [11] });
    assert.equal(sb.decide(11).kind, 'hang');
    sb.dispose();
    assert.deepEqual(sb.current(), {});
  });
});
