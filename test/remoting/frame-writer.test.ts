import * as assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type * as net from 'node:net';
import { describe, it } from 'node:test';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { FrameWriter } from '../../src/remoting/frame-writer.js';

/** Records what reaches the socket, and when. */
class RecordingSocket extends EventEmitter {
  writes: Buffer[] = [];
  cork(): void {}
  uncork(): void {}
  write(chunk: Uint8Array, cb?: (err?: Error | null) => void): boolean {
    this.writes.push(Buffer.from(chunk));
    if (cb) process.nextTick(cb);
    return true;
  }
}

function writerOn(socket: RecordingSocket): FrameWriter {
  return new FrameWriter(socket as unknown as net.Socket, 'test', () => {});
}

describe('FrameWriter', () => {
  it('frames queued in one tick leave in one write at the end of the tick', async () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    for (let i = 0; i < 5; i++) writer.enqueue(createRequest(10, { i }), undefined);
    assert.equal(socket.writes.length, 0);
    await new Promise((r) => process.nextTick(r));
    assert.equal(socket.writes.length, 1);
  });

  it('a batch of 16 frames is handed to the socket at once, without waiting for the tick', () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    for (let i = 0; i < 15; i++) writer.enqueue(createRequest(10, { i }), undefined);
    assert.equal(socket.writes.length, 0);
    writer.enqueue(createRequest(10, { i: 15 }), undefined);
    assert.equal(socket.writes.length, 1);
    assert.equal(writer.queuedFrames, 0);
  });

  it('64 KiB of queued response bodies are handed to the socket at once; bodies are not copied', () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    const body = Buffer.alloc(40 * 1024, 1);
    const request = createRequest(10, undefined);
    writer.enqueue(createResponse(request, 0, undefined, undefined, body), undefined);
    assert.equal(socket.writes.length, 0);
    writer.enqueue(createResponse(request, 0, undefined, undefined, body), undefined);
    // head, body, head, body: the large bodies go as their own chunks
    assert.equal(socket.writes.length, 4);
    assert.equal(socket.writes[1]?.length, body.length);
  });

  it('a request of 8 KiB (an autoBatch batch) is handed to the socket at once, with what was queued before it', () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    writer.enqueue(createRequest(10, { i: 0 }), undefined);
    assert.equal(socket.writes.length, 0);
    writer.enqueue(createRequest(10, undefined, Buffer.alloc(8 * 1024, 1)), undefined);
    assert.equal(socket.writes.length, 1);
    assert.equal(writer.queuedFrames, 0);
    // What comes after it waits for the end of the tick again.
    writer.enqueue(createRequest(10, { i: 2 }), undefined);
    assert.equal(socket.writes.length, 1);
  });

  it('a response of 8 KiB waits for the end of the tick', async () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    const request = createRequest(10, { i: 0 });
    const response = createResponse(request, 0, undefined, undefined, Buffer.alloc(8 * 1024, 1));
    writer.enqueue(response, undefined);
    assert.equal(socket.writes.length, 0);
    await new Promise((r) => process.nextTick(r));
    assert.equal(socket.writes.length, 1);
  });

  it('a request of less than 8 KiB waits for the end of the tick', async () => {
    const socket = new RecordingSocket();
    const writer = writerOn(socket);
    writer.enqueue(createRequest(10, undefined, Buffer.alloc(7 * 1024, 1)), undefined);
    assert.equal(socket.writes.length, 0);
    await new Promise((r) => process.nextTick(r));
    assert.equal(socket.writes.length, 1);
  });
});
