import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ProtocolError } from '../../src/errors.js';
import { decodeFrame } from '../../src/protocol/frame.js';
import { FrameParser } from '../../src/remoting/frame-parser.js';
import { HEX_14_1, HEX_14_2, HEX_14_3, rawJsonFrame } from './helpers.js';

const F1 = Buffer.from(HEX_14_1, 'hex');
const F2 = Buffer.from(HEX_14_2, 'hex');
const F3 = Buffer.from(HEX_14_3, 'hex');
const STREAM = Buffer.concat([F1, F2, F3]);

function parseAll(parser: FrameParser, chunks: Buffer[]): Buffer[] {
  const frames: Buffer[] = [];
  for (const c of chunks) parser.push(c, (f) => frames.push(Buffer.from(f)));
  return frames;
}

test('three §14 frames in one chunk come out as three views of that chunk', () => {
  const parser = new FrameParser();
  const views: Buffer[] = [];
  parser.push(STREAM, (f) => views.push(f));
  assert.equal(views.length, 3);
  for (const v of views) assert.equal(v.buffer, STREAM.buffer, 'a frame inside one chunk must not be copied');
  assert.deepEqual(views[0], F1.subarray(4));
  assert.deepEqual(views[1], F2.subarray(4));
  assert.deepEqual(views[2], F3.subarray(4));
  assert.equal(parser.bufferedBytes, 0);
  const route = decodeFrame(views[0] as Buffer);
  assert.equal(route.code, 105);
  assert.deepEqual(route.extFields, { topic: 'TopicTest' });
  const binary = decodeFrame(views[1] as Buffer);
  assert.equal(binary.opaque, 1);
  assert.deepEqual(binary.extFields, { topic: 'TopicTest' });
  const response = decodeFrame(views[2] as Buffer);
  assert.equal(response.flag, 1);
  assert.equal(Buffer.from(response.body ?? []).toString(), '{}');
});

test('the stream split into two chunks at every byte boundary yields the same frames', () => {
  const expected = [F1.subarray(4), F2.subarray(4), F3.subarray(4)];
  for (let cut = 0; cut <= STREAM.length; cut++) {
    const parser = new FrameParser();
    const frames = parseAll(parser, [STREAM.subarray(0, cut), STREAM.subarray(cut)]);
    assert.deepEqual(frames, expected, `cut at ${cut}`);
    assert.equal(parser.bufferedBytes, 0);
  }
});

test('the stream fed one byte at a time yields the same frames', () => {
  const parser = new FrameParser();
  const chunks = [...STREAM].map((b) => Buffer.from([b]));
  assert.deepEqual(parseAll(parser, chunks), [F1.subarray(4), F2.subarray(4), F3.subarray(4)]);
});

test('three-way splits at every pair of boundaries of a frame with a body', () => {
  const frame = rawJsonFrame('{"code":0,"flag":1,"opaque":9}', Buffer.from('body-bytes'));
  for (let a = 0; a <= frame.length; a++) {
    for (let b = a; b <= frame.length; b++) {
      const parser = new FrameParser();
      const frames = parseAll(parser, [frame.subarray(0, a), frame.subarray(a, b), frame.subarray(b)]);
      assert.equal(frames.length, 1, `cuts ${a},${b}`);
      assert.deepEqual(frames[0], frame.subarray(4));
    }
  }
});

test('a frame whose length prefix spans chunks but whose rest is in one chunk is still a view', () => {
  const parser = new FrameParser();
  const frames: Buffer[] = [];
  const second = Buffer.from(F1.subarray(2));
  parser.push(F1.subarray(0, 2), (f) => frames.push(f));
  parser.push(second, (f) => frames.push(f));
  assert.equal(frames.length, 1);
  assert.equal(frames[0]?.buffer, second.buffer);
});

test('a negative length is rejected', () => {
  const parser = new FrameParser();
  assert.throws(() => parser.push(Buffer.from('ffffffff00000000', 'hex'), () => {}), ProtocolError);
});

test('a length shorter than the header word is rejected', () => {
  const parser = new FrameParser();
  assert.throws(
    () => parser.push(Buffer.from('00000002abcd', 'hex'), () => {}),
    /shorter than the header word/,
  );
});

test('the maximum frame size counts the length field and is checked before allocating', () => {
  const parser = new FrameParser(64);
  const fits = Buffer.alloc(64);
  fits.writeInt32BE(60, 0);
  const got: Buffer[] = [];
  parser.push(fits, (f) => got.push(f));
  assert.equal(got.length, 1);
  const tooBig = Buffer.alloc(4);
  tooBig.writeInt32BE(61, 0);
  assert.throws(() => new FrameParser(64).push(tooBig, () => {}), ProtocolError);
  // 2 GiB announced with only the prefix sent: must fail at once, not allocate.
  const huge = Buffer.from('7ffffff0', 'hex');
  assert.throws(() => new FrameParser().push(huge, () => {}), /exceeds the maximum frame size 16777216/);
});

test('a length announced across two chunks is validated once complete', () => {
  const parser = new FrameParser(1024);
  parser.push(Buffer.from('0010', 'hex'), () => {});
  assert.throws(() => parser.push(Buffer.from('0000', 'hex'), () => {}), ProtocolError);
});

test('a peer answering in another protocol is named instead of an impossible frame length', () => {
  const says = (bytes: Buffer, chunked = false): string => {
    const parser = new FrameParser(undefined, '127.0.0.1:8080');
    try {
      if (chunked) for (const b of bytes) parser.push(Buffer.from([b]), () => {});
      else parser.push(bytes, () => {});
    } catch (err) {
      assert.ok(err instanceof ProtocolError);
      return err.message;
    }
    assert.fail('no error');
  };
  const http = Buffer.from('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  const expected =
    'the peer at 127.0.0.1:8080 does not speak the RocketMQ protocol (it answered like an HTTP server)';
  assert.equal(says(http), expected);
  assert.equal(says(http, true), expected, 'the prefix split over chunks');
  assert.match(says(Buffer.from('15030300020230', 'hex')), /answered like a TLS server/);
  assert.match(says(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')), /sent text starting "SSH-"/);
  // not text: still the frame-length message
  assert.match(says(Buffer.from('7ffffff0', 'hex')), /exceeds the maximum frame size/);
});

test('only the first frame can reveal another protocol: later bad lengths keep the frame-length message', () => {
  const parser = new FrameParser(64, '127.0.0.1:1');
  const ok = Buffer.alloc(8);
  ok.writeInt32BE(4, 0);
  parser.push(ok, () => {});
  assert.throws(() => parser.push(Buffer.from('HTTP'), () => {}), /exceeds the maximum frame size 64/);
});
