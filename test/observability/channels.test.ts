import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as diagnosticsChannel from 'node:diagnostics_channel';
import { fileURLToPath } from 'node:url';
import { TimeoutError } from '../../src/errors.js';
import {
  REQUEST_CHANNEL,
  requestChannel,
  SEND_CHANNEL,
  sendChannel,
  tracingHasSubscribers,
  type RequestTraceContext,
} from '../../src/observability/channels.js';
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { CHILD_SAFETY_LIMIT_MS } from '../helpers/child-limit.js';

test('channel names are the documented ones', () => {
  assert.equal(REQUEST_CHANNEL, 'rocketmq:request');
  assert.equal(SEND_CHANNEL, 'rocketmq:send');
  assert.equal(tracingHasSubscribers(requestChannel), false);
  assert.equal(tracingHasSubscribers(sendChannel), false);
});

test('rocketmq:request publishes start/end/asyncEnd and error with address, code and opaque', async () => {
  const server = new RemotingServer();
  server.registerProcessor(1, (req) => createResponse(req, 0));
  server.registerProcessor(2, () => new Promise(() => {}));
  await server.listen();
  const events: Array<[string, RequestTraceContext]> = [];
  const handlers = {
    start: (m: unknown) => events.push(['start', { ...(m as RequestTraceContext) }]),
    end: (m: unknown) => events.push(['end', { ...(m as RequestTraceContext) }]),
    asyncStart: (m: unknown) => events.push(['asyncStart', { ...(m as RequestTraceContext) }]),
    asyncEnd: (m: unknown) => events.push(['asyncEnd', { ...(m as RequestTraceContext) }]),
    error: (m: unknown) => events.push(['error', { ...(m as RequestTraceContext) }]),
  };
  requestChannel.subscribe(handlers);
  const conn = await Connection.connect(server.address);
  try {
    assert.equal(tracingHasSubscribers(requestChannel), true);
    const cmd = createRequest(1);
    const response = await conn.request(cmd, 1000);
    assert.deepEqual(
      events.map(([name]) => name),
      ['start', 'end', 'asyncStart', 'asyncEnd'],
    );
    const start = events[0]?.[1];
    assert.equal(start?.address, server.address);
    assert.equal(start?.code, 1);
    assert.equal(start?.opaque, cmd.opaque);
    assert.equal(events[3]?.[1].response, response);
    events.length = 0;
    await assert.rejects(conn.request(createRequest(2), 20), TimeoutError);
    assert.deepEqual(
      events.map(([name]) => name),
      ['start', 'end', 'error', 'asyncStart', 'asyncEnd'],
    );
    assert.ok(events[2]?.[1].error instanceof TimeoutError);
  } finally {
    requestChannel.unsubscribe(handlers);
    conn.close();
    await server.close();
  }
  assert.equal(tracingHasSubscribers(requestChannel), false);
  assert.equal(diagnosticsChannel.hasSubscribers('tracing:rocketmq:request:start'), false);
});

test('NODE_DEBUG=rocketmq dumps frames in hex on stderr', () => {
  const child = fileURLToPath(new URL('./debug-child.js', import.meta.url));
  const result = spawnSync(process.execPath, [child], {
    env: { ...process.env, NODE_DEBUG: 'rocketmq' },
    encoding: 'utf8',
    timeout: CHILD_SAFETY_LIMIT_MS,
  });
  assert.equal(result.status, 0, result.stderr);
  // The request (code 105 → JSON `{"code":105`) went out and its response came back, in hex.
  const codeHex = Buffer.from('{"code":105').toString('hex');
  assert.match(
    result.stderr,
    new RegExp(`ROCKETMQ \\d+: send 127\\.0\\.0\\.1:\\d+ 000000\\w{2}000000\\w{2}${codeHex}`),
  );
  assert.match(result.stderr, /ROCKETMQ \d+: recv /);
});
