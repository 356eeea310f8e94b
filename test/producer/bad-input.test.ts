import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { invalidArgument } from '../invalid-argument.js';
import { MAX_DELAY_LEVEL, prepareBatch, prepareMessage, type Message } from '../../src/producer/message.js';
import { resolveProducerOptions, type ProducerOptions } from '../../src/producer/options.js';
import { decompressBody } from '../../src/protocol/message/compression.js';
import { UniqIdGenerator } from '../../src/protocol/message/message-id.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';
import { MessageSysFlag } from '../../src/protocol/message/sysflag.js';

const ids = new UniqIdGenerator();
const settings = {
  maxMessageSize: 64 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
};

/** What a JavaScript caller can write: no types stop a misspelt key. */
function fromJavaScript<T>(value: object): T {
  return value as unknown as T;
}

describe('bad input from a JavaScript caller', () => {
  it('an unknown option is rejected naming it and the closest known option', () => {
    const err = invalidArgument(() =>
      resolveProducerOptions(
        fromJavaScript<ProducerOptions>({ namesrvAddr: '127.0.0.1:9876', sendMsgTimeOut: 500 }),
      ),
    );
    assert.equal(err.field, 'sendMsgTimeOut');
    assert.match(err.message, /did you mean sendMsgTimeout\?/);
  });

  it('an unknown message field is rejected naming it and the closest known field, in a batch too', () => {
    const single = invalidArgument(() =>
      prepareMessage(fromJavaScript<Message>({ topic: 'T', body: 'x', tag: 'A' }), settings, ids),
    );
    assert.equal(single.field, 'tag');
    assert.match(single.message, /did you mean tags\?/);
    const batch = invalidArgument(() =>
      prepareBatch(
        [{ topic: 'T', body: 'x' }, fromJavaScript<Message>({ topic: 'T', body: 'y', delayLevel: 1 })],
        settings,
        ids,
      ),
    );
    assert.equal(batch.field, 'messages[1].delayLevel');
    assert.match(batch.message, /did you mean messages\[1\]\.delayTimeLevel\?/);
  });

  it('delayTimeLevel outside 1..18 is rejected; 0 means no delay', () => {
    for (const level of [-1, MAX_DELAY_LEVEL + 1, 1.5, '3']) {
      const err = invalidArgument(() =>
        prepareMessage(
          fromJavaScript<Message>({ topic: 'T', body: 'x', delayTimeLevel: level }),
          settings,
          ids,
        ),
      );
      assert.equal(err.field, 'delayTimeLevel');
    }
    const top = prepareMessage({ topic: 'T', body: 'x', delayTimeLevel: MAX_DELAY_LEVEL }, settings, ids);
    assert.equal(decodeProperties(top.properties)['DELAY'], '18');
    const none = prepareMessage({ topic: 'T', body: 'x', delayTimeLevel: 0 }, settings, ids);
    assert.equal(decodeProperties(none.properties)['DELAY'], undefined);
  });
});

describe('compression never makes a body too big for the broker', () => {
  it('an incompressible body of exactly maxMessageSize goes out uncompressed', () => {
    const raw = randomBytes(settings.maxMessageSize);
    const p = prepareMessage({ topic: 'T', body: raw }, settings, ids);
    assert.equal(p.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0);
    assert.equal(p.body.byteLength, settings.maxMessageSize);
  });

  it('a compressible body over the threshold is still compressed', () => {
    const raw = Buffer.alloc(settings.maxMessageSize, 'a');
    const p = prepareMessage({ topic: 'T', body: raw }, settings, ids);
    assert.notEqual(p.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0);
    assert.ok(p.body.byteLength < raw.byteLength);
    assert.deepEqual(Buffer.from(decompressBody(p.body, p.sysFlag)), raw);
  });
});
