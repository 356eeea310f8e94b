import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../src/errors.js';
import { formatIp, parseIp } from '../../src/protocol/message/inet.js';

describe('IP text <-> bytes', () => {
  it('IPv4', () => {
    assert.deepEqual([...parseIp('127.0.0.1')], [127, 0, 0, 1]);
    assert.deepEqual([...parseIp('255.255.255.255')], [255, 255, 255, 255]);
    assert.equal(formatIp(Uint8Array.of(127, 0, 0, 254)), '127.0.0.254');
  });

  it('IPv6 forms, including brackets, zones and embedded IPv4', () => {
    const cases: Array<[string, string]> = [
      ['::1', '::1'],
      ['::', '::'],
      ['[::1]', '::1'],
      ['fe80::1%eth0', 'fe80::1'],
      ['2001:DB8:0:0:0:0:2:1', '2001:db8::2:1'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['::ffff:127.0.0.1', '::ffff:7f00:1'],
      ['1::', '1::'],
      ['0:0:1:0:0:0:0:1', '0:0:1::1'],
    ];
    for (const [input, text] of cases) {
      const bytes = parseIp(input);
      assert.equal(bytes.length, 16, input);
      assert.equal(formatIp(bytes), text, input);
      assert.deepEqual(parseIp(text), bytes, text);
    }
  });

  it('rejects what is not an address', () => {
    for (const bad of [
      '',
      'localhost',
      '1.2.3',
      '1.2.3.4.5',
      '256.0.0.1',
      '1.2.3.-4',
      '1:2:3',
      ':::',
      '1::2::3',
      '12345::',
      'g::1',
      '1:2:3:4:5:6:7:8:9',
    ]) {
      assert.throws(() => parseIp(bad), ProtocolError, bad);
    }
    assert.throws(() => formatIp(new Uint8Array(5)), ProtocolError);
  });
});
