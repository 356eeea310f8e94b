import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { ClientInstance } from '../../src/client/client-instance.js';
import type { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createRequest, createResponse, type RemotingCommand } from '../../src/protocol/command.js';
import { waitFor } from '../producer/cluster-helpers.js';
import { instanceConfig } from './helpers.js';

/** A broker that accepts the client's connection, so the test can send requests back over it. */
async function brokerConnection(
  instance: ClientInstance,
): Promise<{ conn: Connection; server: RemotingServer }> {
  const server = new RemotingServer();
  server.setDefaultProcessor((req) => createResponse(req, ResponseCode.SUCCESS));
  const accepted = new Promise<Connection>((resolve) => server.once('connection', resolve));
  await server.listen();
  await instance.pool.request(server.address, createRequest(RequestCode.HEART_BEAT), 1000);
  return { conn: await accepted, server };
}

describe('inbound requests', () => {
  it('a registered handler answers with the request and the remote address; unregistered codes get REQUEST_CODE_NOT_SUPPORTED', async () => {
    const instance = new ClientInstance(instanceConfig(['127.0.0.1:1']));
    const { conn, server } = await brokerConnection(instance);
    try {
      const seen: { code: number; from: string }[] = [];
      const handler = (req: RemotingCommand, from: string): Promise<RemotingCommand> => {
        seen.push({ code: req.code, from });
        return Promise.resolve(createResponse(req, ResponseCode.SUCCESS, 'running'));
      };
      instance.inbound.register(RequestCode.GET_CONSUMER_RUNNING_INFO, handler);
      const answered = await conn.request(
        createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'G', clientId: 'x' }),
        1000,
      );
      assert.equal(answered.code, ResponseCode.SUCCESS);
      assert.equal(answered.remark, 'running');
      assert.deepEqual(seen, [{ code: RequestCode.GET_CONSUMER_RUNNING_INFO, from: server.address }]);

      instance.inbound.unregister(RequestCode.GET_CONSUMER_RUNNING_INFO, handler);
      const unsupported = await conn.request(
        createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, { consumerGroup: 'G', clientId: 'x' }),
        1000,
      );
      assert.equal(unsupported.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    } finally {
      await instance.shutdown();
      await server.close();
    }
  });

  it('a oneway NOTIFY_CONSUMER_IDS_CHANGED reaches its handler; an unhandled oneway gets no reply', async () => {
    const instance = new ClientInstance(instanceConfig(['127.0.0.1:1']));
    const { conn, server } = await brokerConnection(instance);
    const notified: string[] = [];
    instance.inbound.register(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, (req) => {
      notified.push(req.extFields?.['consumerGroup'] ?? '');
      return undefined;
    });
    try {
      await conn.oneway(createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { consumerGroup: 'CG' }));
      await conn.oneway(createRequest(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, { topic: 'T' }));
      await waitFor(() => notified.length === 1, 3000, 'the notification handled');
      assert.deepEqual(notified, ['CG']);
      const after = await conn.request(createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY), 1000);
      assert.equal(after.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, 'still connected and answering');
    } finally {
      await instance.shutdown();
      await server.close();
    }
  });
});
