import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signRequest, verifySignature } from '../../src/protocol/acl.js';
import { RequestCode } from '../../src/protocol/codes.js';
import { createRequest } from '../../src/protocol/command.js';

describe('ACL signing (§9)', () => {
  it('signs GET_ROUTEINFO_BY_TOPIC like Java', () => {
    const cmd = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TopicTest' });
    assert.equal(signRequest(cmd, 'RocketMQ', '12345678'), '0jiwhsaYp5ObE5GObbZH1I8/FT4=');
    assert.deepEqual(cmd.extFields, {
      topic: 'TopicTest',
      AccessKey: 'RocketMQ',
      Signature: '0jiwhsaYp5ObE5GObbZH1I8/FT4=',
    });
    assert.ok(verifySignature(cmd, '12345678'));
    assert.ok(!verifySignature(cmd, 'wrong'));
  });

  it('signs SEND_MESSAGE_V2 with a body like Java', () => {
    const ext = {
      a: 'PG',
      b: 'T',
      c: 'TBW102',
      d: '4',
      e: '0',
      f: '0',
      g: '1700000000000',
      h: '0',
      i: 'UNIQ_KEY\u00017F0000010001000000000000000000AA\u0002WAIT\u0001true\u0002TAGS\u0001TagA',
      j: '0',
      k: 'false',
      m: 'false',
      n: 'broker-a',
    };
    const cmd = createRequest(RequestCode.SEND_MESSAGE_V2, ext, Buffer.from('hello'));
    assert.equal(signRequest(cmd, 'RocketMQ', '12345678'), 'p4G4vExkcykV2/zr9jZFz4Ad60s=');
    // The body is part of the signature.
    cmd.body = Buffer.from('hellO');
    assert.ok(!verifySignature(cmd, '12345678'));
  });

  it('re-signing replaces the old signature; a security token is signed too', () => {
    const cmd = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TopicTest' });
    signRequest(cmd, 'RocketMQ', '12345678');
    const withToken = signRequest(cmd, 'RocketMQ', '12345678', 'tok');
    assert.notEqual(withToken, '0jiwhsaYp5ObE5GObbZH1I8/FT4=');
    assert.equal(cmd.extFields!.SecurityToken, 'tok');
    assert.ok(verifySignature(cmd, '12345678'));
  });

  it('leaves _UNIQUE_KEY_QUERY out of the signed content, as servers do', () => {
    const a = createRequest(RequestCode.QUERY_MESSAGE, { topic: 'T' });
    const b = createRequest(RequestCode.QUERY_MESSAGE, { topic: 'T', _UNIQUE_KEY_QUERY: 'true' });
    assert.equal(signRequest(a, 'ak', 'sk'), signRequest(b, 'ak', 'sk'));
  });
});
