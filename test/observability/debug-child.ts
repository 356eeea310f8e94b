/** Child process for channels.test.ts: one request with NODE_DEBUG=rocketmq set by the parent. */
import { createRequest, createResponse } from '../../src/protocol/command.js';
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';

const server = new RemotingServer();
server.registerProcessor(105, (req) => createResponse(req, 0));
await server.listen();
const conn = await Connection.connect(server.address);
await conn.request(createRequest(105, { topic: 'T' }), 2000);
conn.close();
await server.close();
