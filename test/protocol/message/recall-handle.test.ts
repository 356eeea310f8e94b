/**
 * The recall handle codec against bytes not made by it: a prefix of a handle a Java 5.5.0 broker
 * issued, and handles encoded by Python's `base64.urlsafe_b64encode` (Java's URL encoder pads the
 * same way). Decoding follows Java `RecallMessageHandle.decodeHandle`'s acceptance rules.
 */
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { decodeRecallHandle, encodeRecallHandle } from '../../../src/protocol/message/recall-handle.js';

/** From a 5.5.0 broker: `v1 JRecall broker-a 1796154158001 C0000202…` (message id cut after 8 characters). */
const JAVA_PREFIX = 'djEgSlJlY2FsbCBicm9rZXItYSAxNzk2MTU0MTU4MDAxIEMwMDAwMjAy';

describe('recall handle codec (Java RecallMessageHandle.HandleV1)', () => {
  it('encodes the fields in Java order, space-separated, URL-safe base64 with = padding', () => {
    assert.ok(
      encodeRecallHandle({
        topic: 'JRecall',
        brokerName: 'broker-a',
        timestamp: '1796154158001',
        messageId: 'C0000202',
      }).startsWith(JAVA_PREFIX),
    );
    // python3: base64.urlsafe_b64encode(b'v1 T b 1 M')
    assert.equal(
      encodeRecallHandle({ topic: 'T', brokerName: 'b', timestamp: '1', messageId: 'M' }),
      'djEgVCBiIDEgTQ==',
    );
    // a namespaced wire topic (% is kept as is inside the text)
    assert.equal(
      encodeRecallHandle({
        topic: '%NS%Orders',
        brokerName: 'broker-b',
        timestamp: '1700000000001',
        messageId: '7F0000010001ABCDEF',
      }),
      'djEgJU5TJU9yZGVycyBicm9rZXItYiAxNzAwMDAwMDAwMDAxIDdGMDAwMDAxMDAwMUFCQ0RFRg==',
    );
  });

  it('decodes independent bytes, padded or not (Java accepts both)', () => {
    const want = { version: 'v1', topic: 'T', brokerName: 'b', timestamp: '1', messageId: 'M' };
    assert.deepEqual(decodeRecallHandle('djEgVCBiIDEgTQ=='), want);
    assert.deepEqual(decodeRecallHandle('djEgVCBiIDEgTQ'), want);
    assert.deepEqual(decodeRecallHandle('djEgSlJlY2FsbCBicm9rZXItYSAxNzk2MTU0MTU4MDAxIEMwMDAwMjAy'), {
      version: 'v1',
      topic: 'JRecall',
      brokerName: 'broker-a',
      timestamp: '1796154158001',
      messageId: 'C0000202',
    });
  });

  it('refuses what Java refuses: empty, not base64url, a leftover character, another version, fewer than five fields', () => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64url');
    for (const bad of [
      '',
      undefined,
      42,
      'not a handle!',
      'djEgVCBiIDEgTQ+/', // standard-alphabet characters
      'djEgVCBiIDEgT', // 4n+1 characters: 6 bits left over
      'djEgVCBiIDEgTQ=', // padding that does not complete a unit
      b64('v2 T b 1 M'),
      b64('v1 T b 1'),
      b64('v1 T b 1 '), // Java's split drops the trailing empty field
    ])
      assert.equal(decodeRecallHandle(bad), undefined, String(bad));
  });

  it('keeps an empty inner field and ignores fields past the fifth, as Java split does', () => {
    const b64 = (s: string): string => Buffer.from(s).toString('base64url');
    assert.equal(decodeRecallHandle(b64('v1  b 1 M'))?.topic, '');
    assert.equal(decodeRecallHandle(b64('v1 T b 1 M extra'))?.messageId, 'M');
  });

  it('round-trips UTF-8 fields', () => {
    const h = { topic: 'T', brokerName: 'brøker', timestamp: '99', messageId: 'ID' };
    assert.deepEqual(decodeRecallHandle(encodeRecallHandle(h)), { version: 'v1', ...h });
  });
});
