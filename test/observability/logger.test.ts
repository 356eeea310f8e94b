import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { consoleLogger, hexDump, silentLogger } from '../../src/observability/logger.js';

function captureStderr(fn: () => void): string {
  const original = process.stderr.write.bind(process.stderr);
  let out = '';
  process.stderr.write = ((chunk: string | Uint8Array): boolean => {
    out += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    fn();
  } finally {
    process.stderr.write = original;
  }
  return out;
}

test('consoleLogger prints its level and above with namespace and meta', () => {
  const out = captureStderr(() => {
    const log = consoleLogger('rocketmq:test', 'warn');
    log.debug('hidden debug');
    log.info('hidden info');
    log.warn('shown warn', { opaque: 7, error: new Error('why') });
    log.error('shown error');
  });
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(
    lines[0] ?? '',
    /^\d{4}-\d\d-\d\dT\S+ WARN rocketmq:test: shown warn \{"opaque":7,"error":"why"\}$/,
  );
  assert.match(lines[1] ?? '', / ERROR rocketmq:test: shown error$/);
});

test('consoleLogger defaults to info', () => {
  const out = captureStderr(() => {
    const log = consoleLogger('ns');
    log.debug('no');
    log.info('yes');
  });
  assert.match(out, /INFO ns: yes/);
  assert.doesNotMatch(out, /no\n/);
});

test('silentLogger prints nothing', () => {
  const out = captureStderr(() => {
    silentLogger.error('nothing', { a: 1 });
    silentLogger.warn('nothing');
  });
  assert.equal(out, '');
});

test('hexDump joins chunks and caps long frames', () => {
  assert.equal(hexDump([Buffer.from([0, 1]), Buffer.from([0xab])]), '0001ab');
  const long = hexDump([Buffer.alloc(600, 0xff)], 4);
  assert.equal(long, 'ffffffff... (600 bytes)');
});
