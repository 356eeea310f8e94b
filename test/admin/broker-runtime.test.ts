/**
 * GET_BROKER_RUNTIME_INFO as a real broker answers it while young: a real 4.9.7 broker up for a
 * few seconds writes `putTps` as `"0.99  "` (only its 10 s window has samples yet) and, in its
 * first second, answers SYSTEM_ERROR (java.util.NoSuchElementException: its samples are empty).
 */
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { BrokerResponseError } from '../../src/errors.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { encodeKVTable } from '../../src/protocol/headers/register.js';
import { createResponse } from '../../src/protocol/command.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { NameServer } from '../../src/server/namesrv/namesrv.js';

let namesrv: NameServer;
let server: RemotingServer;
let address: string;
let admin: Admin;
let answer: { putTps: string; getTransferedTps: string } | 'samples empty';

before(async () => {
  server = new RemotingServer({ host: '127.0.0.1', port: 0 });
  server.registerProcessor(RequestCode.GET_BROKER_RUNTIME_INFO, (r) =>
    answer === 'samples empty'
      ? createResponse(r, ResponseCode.SYSTEM_ERROR, 'java.util.NoSuchElementException')
      : createResponse(r, ResponseCode.SUCCESS, undefined, undefined, encodeKVTable(answer)),
  );
  const { port } = await server.listen();
  address = `127.0.0.1:${port}`;
  // an empty NameServer: an address (ip:port) no cluster lists is asked as it is
  namesrv = new NameServer({ listenPort: 0 });
  await namesrv.start();
  admin = new Admin({ namesrvAddr: namesrv.address });
});

after(async () => {
  await admin.close();
  await server.close();
  await namesrv.stop();
});

test('a young broker leaves its 1 min and 10 min TPS empty: positions are kept', async () => {
  answer = { putTps: '0.9996001599360256  ', getTransferedTps: '12.5 3.25 ' };
  const stats = await admin.brokerRuntimeStats(address);
  assert.deepEqual(stats.putTps, [0.9996001599360256, undefined, undefined]);
  assert.deepEqual(stats.getTransferredTps, [12.5, 3.25, undefined]);
  answer = { putTps: '  ', getTransferedTps: '1 2 3' };
  const empty = await admin.brokerRuntimeStats(address);
  assert.deepEqual(empty.putTps, [undefined, undefined, undefined]);
  assert.deepEqual(empty.getTransferredTps, [1, 2, 3]);
});

test('a broker in its first second answers SYSTEM_ERROR: a BrokerResponseError with its remark', async () => {
  answer = 'samples empty';
  await assert.rejects(
    admin.brokerRuntimeStats(address),
    (e: unknown) =>
      e instanceof BrokerResponseError &&
      e.responseCode === ResponseCode.SYSTEM_ERROR &&
      /NoSuchElementException/.test(e.remark ?? ''),
  );
});
