import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RequestCode } from '../../../src/protocol/codes.js';
import type { RemotingCommand } from '../../../src/protocol/command.js';
import type { Connection } from '../../../src/remoting/connection.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { ClientManager, type HeartbeatConsumer } from '../../../src/server/broker/client-manager.js';
import { LOCK_MAX_LIVE_MS, RebalanceLocks } from '../../../src/server/broker/rebalance-locks.js';

interface FakeChannel {
  conn: Connection;
  /** Groups of the NOTIFY_CONSUMER_IDS_CHANGED requests it got. */
  notes: string[];
  shut: boolean;
}

/** A stand-in channel that records the oneway requests the broker sends it. */
function fakeConn(addr: string): FakeChannel {
  const fake: FakeChannel = { conn: undefined as unknown as Connection, notes: [], shut: false };
  fake.conn = {
    remoteAddress: addr,
    get closed(): boolean {
      return fake.shut;
    },
    oneway(cmd: RemotingCommand): Promise<void> {
      if (cmd.code === RequestCode.NOTIFY_CONSUMER_IDS_CHANGED)
        fake.notes.push(cmd.extFields?.consumerGroup ?? '');
      return Promise.resolve();
    },
    close(): void {
      fake.shut = true;
    },
  } as unknown as Connection;
  return fake;
}

function consumer(group: string, topics: Array<[string, string, number]>): HeartbeatConsumer {
  return {
    groupName: group,
    consumeType: 'CONSUME_PASSIVELY',
    messageModel: 'CLUSTERING',
    consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
    subscriptions: topics.map(([topic, subString, subVersion]) => ({
      topic,
      subString,
      expressionType: 'TAG',
      subVersion,
    })),
  };
}

const info = (clientId: string, lastUpdateTimestamp = Date.now()) => ({
  clientId,
  language: 'JAVA',
  version: 395,
  lastUpdateTimestamp,
});

describe('consumer group membership (ConsumerManager rules)', () => {
  it('notifies the group when a member joins, when a topic is added or dropped, not on a plain heartbeat', () => {
    const clients = new ClientManager(silentLogger);
    const a = fakeConn('127.0.0.1:1');
    const b = fakeConn('127.0.0.1:2');
    clients.registerConsumer(consumer('G', [['T', '*', 1]]), a.conn, info('a@1'));
    assert.deepEqual(a.notes, ['G'], 'join');
    clients.registerConsumer(consumer('G', [['T', '*', 1]]), a.conn, info('a@1'));
    assert.deepEqual(a.notes, ['G'], 'an unchanged heartbeat says nothing');
    clients.registerConsumer(consumer('G', [['T', '*', 1]]), b.conn, info('b@2'));
    assert.equal(a.notes.length, 2);
    assert.equal(b.notes.length, 1);
    clients.registerConsumer(
      consumer('G', [
        ['T', '*', 1],
        ['U', 'x', 1],
      ]),
      b.conn,
      info('b@2'),
    );
    assert.equal(a.notes.length, 3, 'topic added');
    // Last writer wins: a heartbeat without U removes it for the whole group.
    clients.registerConsumer(consumer('G', [['T', '*', 1]]), a.conn, info('a@1'));
    assert.equal(a.notes.length, 4, 'topic dropped');
    assert.deepEqual([...clients.consumerGroup('G')!.subscriptions.keys()], ['T']);
  });

  it('a higher subVersion replaces the expression and recompiles the filter', () => {
    const clients = new ClientManager(silentLogger);
    const a = fakeConn('127.0.0.1:1');
    clients.registerConsumer(consumer('G', [['T', 'A', 1]]), a.conn, info('a@1'));
    clients.registerConsumer(consumer('G', [['T', 'A || B', 2]]), a.conn, info('a@1'));
    const sub = clients.consumerGroup('G')!.subscriptions.get('T')!;
    assert.equal(sub.subString, 'A || B');
    assert.deepEqual(sub.filter?.type === 'TAG' ? [...sub.filter.tags.tags] : [], ['A', 'B']);
  });

  it('UNREGISTER_CLIENT, channel close and 120 s silence each remove the member and notify the rest', () => {
    const clients = new ClientManager(silentLogger);
    const t0 = 1_000_000;
    const [a, b, c, d] = ['1', '2', '3', '4'].map((p) => fakeConn(`127.0.0.1:${p}`)) as [
      FakeChannel,
      FakeChannel,
      FakeChannel,
      FakeChannel,
    ];
    for (const [conn, id] of [
      [a, 'a@1'],
      [b, 'b@2'],
      [c, 'c@3'],
      [d, 'd@4'],
    ] as const)
      clients.registerConsumer(consumer('G', [['T', '*', 1]]), conn.conn, info(id, t0));
    const before = a.notes.length;
    clients.unregisterConsumer('G', d.conn);
    assert.equal(a.notes.length, before + 1);
    clients.connectionClosed(c.conn);
    assert.equal(a.notes.length, before + 2);
    clients.registerConsumer(consumer('G', [['T', '*', 1]]), a.conn, info('a@1', t0 + 100_000));
    assert.equal(clients.scanNotActive(120_000, t0 + 120_001), 1, 'b was silent for 120 s');
    assert.ok(b.shut);
    assert.equal(a.notes.length, before + 3);
    assert.deepEqual(clients.consumerIds('G'), ['a@1']);
  });
});

describe('orderly queue locks (RebalanceLockManager)', () => {
  const mq = { topic: 'T', brokerName: 'b', queueId: 0 };
  it('the holder renews, others wait out the 60 s TTL, and only the holder unlocks', () => {
    const locks = new RebalanceLocks();
    assert.equal(locks.lock('G', 'c1', [mq], 0).length, 1);
    assert.equal(locks.lock('G', 'c1', [mq], 50_000).length, 1, 'renewal by the same client');
    assert.equal(
      locks.lock('G', 'c2', [mq], 50_000 + LOCK_MAX_LIVE_MS).length,
      0,
      'renewed at 50 s: still held',
    );
    locks.unlock('G', 'c2', [mq]);
    assert.equal(locks.holder('G', mq, 60_000), 'c1', 'a non-owner cannot unlock');
    assert.equal(locks.lock('G', 'c2', [mq], 50_001 + LOCK_MAX_LIVE_MS).length, 1, 'expired: taken over');
    locks.unlock('G', 'c2', [mq]);
    assert.equal(locks.holder('G', mq, 50_001 + LOCK_MAX_LIVE_MS), undefined);
  });
});
