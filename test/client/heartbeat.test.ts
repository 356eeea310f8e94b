import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { ClientInstance } from '../../src/client/client-instance.js';
import { Deadline } from '../../src/client/deadline.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse } from '../../src/protocol/command.js';
import {
  ConsumeFromWhere,
  ConsumeType,
  MessageModel,
  parseHeartbeatData,
  UnregisterClient,
  type ConsumerData,
  type HeartbeatData,
} from '../../src/protocol/headers/heartbeat.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { waitFor } from '../producer/cluster-helpers.js';
import { fakeNameServer, instanceConfig } from './helpers.js';

interface FakeBroker {
  server: RemotingServer;
  address: string;
  heartbeats: HeartbeatData[];
  unregisters: Record<string, string>[];
}

async function fakeBroker(): Promise<FakeBroker> {
  const server = new RemotingServer();
  const b: FakeBroker = { server, address: '', heartbeats: [], unregisters: [] };
  server.registerProcessor(RequestCode.HEART_BEAT, (req) => {
    b.heartbeats.push(parseHeartbeatData(req.body ?? ''));
    return createResponse(req, ResponseCode.SUCCESS);
  });
  server.registerProcessor(RequestCode.UNREGISTER_CLIENT, (req) => {
    b.unregisters.push(UnregisterClient.encode(UnregisterClient.decode(req.extFields)));
    return createResponse(req, ResponseCode.SUCCESS);
  });
  await server.listen();
  b.address = server.address;
  return b;
}

const consumer: ConsumerData = {
  groupName: 'CG',
  consumeType: ConsumeType.CONSUME_PASSIVELY,
  messageModel: MessageModel.CLUSTERING,
  consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
  subscriptionDataSet: [
    {
      topic: 'T',
      subString: '*',
      tagsSet: [],
      codeSet: [],
      subVersion: 1,
      expressionType: 'TAG',
      classFilterMode: false,
    },
  ],
  unitMode: false,
};

describe('Heartbeat', () => {
  it('producers heartbeat the masters; a consumer adds its ConsumerData and the slaves; unregister names the consumerGroup', async () => {
    const master = await fakeBroker();
    const slave = await fakeBroker();
    const ns = await fakeNameServer(() => ({
      queueDatas: [{ brokerName: 'broker-a', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 }],
      brokerDatas: [
        { cluster: 'C', brokerName: 'broker-a', brokerAddrs: { '0': master.address, '1': slave.address } },
      ],
      filterServerTable: {},
    }));
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      await instance.routes.get('T', Deadline.after(1000));
      const producer = { producerGroups: () => ['PG'] };
      assert.equal(instance.heartbeat.register(producer), true);
      await instance.heartbeat.sendHeartbeatToAllBrokers();
      assert.ok(master.heartbeats.length > 0);
      assert.equal(slave.heartbeats.length, 0, 'no consumer: the slave is not bothered');
      assert.deepEqual(
        master.heartbeats.at(-1)?.producerDataSet.map((p) => p.groupName),
        ['CLIENT_INNER_PRODUCER', 'PG'],
      );

      const member = { consumerData: () => [consumer] };
      assert.equal(instance.heartbeat.register(member), true);
      assert.equal(
        instance.heartbeat.register({ consumerData: () => [{ ...consumer }] }),
        false,
        'a consumer group registers once per client',
      );
      await instance.heartbeat.sendHeartbeatToAllBrokers();
      assert.ok(slave.heartbeats.length > 0, 'with a consumer the slave gets heartbeats too');
      assert.deepEqual(slave.heartbeats.at(-1)?.consumerDataSet, [consumer]);
      assert.deepEqual(master.heartbeats.at(-1)?.consumerDataSet, [consumer]);

      await instance.heartbeat.unregister(member);
      for (const b of [master, slave])
        assert.deepEqual(b.unregisters, [{ clientID: '127.0.0.1@test', consumerGroup: 'CG' }]);
      await instance.heartbeat.unregister(producer);
      assert.deepEqual(master.unregisters.at(-1), { clientID: '127.0.0.1@test', producerGroup: 'PG' });
      assert.equal(instance.heartbeat.active, false);
    } finally {
      await instance.shutdown();
      await ns.close();
      await master.server.close();
      await slave.server.close();
    }
  });

  it('a broker address that appears in a route gets a heartbeat at once', async () => {
    const master = await fakeBroker();
    const ns = await fakeNameServer(() => ({
      queueDatas: [{ brokerName: 'broker-a', readQueueNums: 2, writeQueueNums: 2, perm: 6, topicSysFlag: 0 }],
      brokerDatas: [{ cluster: 'C', brokerName: 'broker-a', brokerAddrs: { '0': master.address } }],
      filterServerTable: {},
    }));
    const instance = new ClientInstance(instanceConfig([ns.address]));
    try {
      instance.heartbeat.register({ producerGroups: () => ['PG'] });
      assert.equal(master.heartbeats.length, 0, 'no broker known yet');
      await instance.routes.get('T', Deadline.after(1000));
      await waitFor(() => master.heartbeats.length > 0, 3000, 'heartbeat to the new broker');
    } finally {
      await instance.shutdown();
      await ns.close();
      await master.server.close();
    }
  });
});
