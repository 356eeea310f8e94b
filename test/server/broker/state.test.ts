import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidArgumentError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/observability/logger.js';
import { BrokerStats } from '../../../src/server/broker/broker-stats.js';
import { maskTopicPerms } from '../../../src/server/broker/broker.js';
import type { BrokerContext } from '../../../src/server/broker/context.js';
import { DEFAULT_BROKER_OPTIONS, validateBrokerOptions } from '../../../src/server/broker/options.js';
import { PeriodicTask } from '../../../src/server/broker/periodic-task.js';
import { LOCK_MAX_LIVE_MS, RebalanceLocks } from '../../../src/server/broker/rebalance-locks.js';
import { StateFile } from '../../../src/server/broker/state-file.js';
import { MAX_RESOLVED, TransactionCheckService } from '../../../src/server/broker/transaction-check.js';

describe('broker state and bookkeeping', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rmq-state-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a burst of state-file writes coalesces into at most two, and the file holds the latest', async () => {
    const file = new StateFile(join(dir, 'burst.json'));
    const all: Array<Promise<void>> = [];
    for (let i = 0; i < 50; i++) all.push(file.write(String(i)));
    await Promise.all(all);
    assert.ok(file.writes <= 2, `wrote ${file.writes} times`);
    assert.equal(await readFile(file.path, 'utf8'), '49');
    await file.write('again');
    await file.settled();
    assert.equal(await readFile(file.path, 'utf8'), 'again');
  });

  it('a queued save serializes the state as it is when the write starts', async () => {
    const file = new StateFile(join(dir, 'late.json'));
    let state = 'a';
    const first = file.save(() => state);
    const second = file.save(() => `queued-${state}`);
    state = 'b';
    await Promise.all([first, second]);
    assert.equal(await readFile(file.path, 'utf8'), 'queued-b');
  });

  it('PeriodicTask.stop() resolves only after the run under way has finished', async () => {
    let release!: () => void;
    let finished = false;
    const task = new PeriodicTask(
      async () => {
        await new Promise<void>((r) => (release = r));
        finished = true;
      },
      { stopping: false, logger: silentLogger },
      'failed',
    );
    void task.run();
    await Promise.resolve();
    await Promise.resolve();
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(stopped, false);
    release();
    await stopping;
    assert.equal(finished, true);
  });

  it('END_TRANSACTION resolutions are not written one by one, and the resolved set is bounded', async () => {
    const ctx = {
      options: {
        ...DEFAULT_BROKER_OPTIONS,
        transactionCheckInterval: 3_600_000,
        flushConsumerOffsetInterval: 3_600_000,
      },
      logger: silentLogger,
      stopping: false,
    } as unknown as BrokerContext;
    const file = join(dir, 'transaction.json');
    const service = new TransactionCheckService(ctx, file);
    await service.start();
    for (let i = 0; i < MAX_RESOLVED + 10; i++) service.resolve(i);
    assert.equal(service.stateWrites, 0);
    assert.equal(service.resolvedCount, MAX_RESOLVED);
    assert.equal(service.isResolved(0), false, 'the oldest is evicted');
    assert.equal(service.isResolved(MAX_RESOLVED + 9), true);
    await service.stop({ persist: true });
    assert.equal(service.stateWrites, 1);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { resolved: number[] };
    assert.equal(saved.resolved.length, MAX_RESOLVED);
  });

  it('queue locks lapse, are freed per client, and stop growing at the cap', () => {
    const locks = new RebalanceLocks(3);
    const mq = (queueId: number): { topic: string; brokerName: string; queueId: number } => ({
      topic: 'T',
      brokerName: 'b',
      queueId,
    });
    assert.equal(locks.lock('G', 'c1', [mq(0), mq(1)], 1000).length, 2);
    assert.equal(locks.lock('G', 'c2', [mq(0)], 1000).length, 0);
    assert.equal(locks.lock('H', 'c2', [mq(0), mq(1)], 1000).length, 1, 'cap of 3 reached');
    assert.equal(locks.size, 3);
    locks.releaseClient('c1');
    assert.equal(locks.size, 1);
    assert.equal(locks.groupCount, 1);
    locks.pruneExpired(1000 + LOCK_MAX_LIVE_MS + 1);
    assert.equal(locks.size, 0);
    assert.equal(locks.groupCount, 0);
  });

  it('the morning totals roll over at local midnight like Java BrokerStats.record', () => {
    const stats = new BrokerStats();
    stats.putTotal = 5;
    stats.sample(Date.now());
    assert.equal(stats.putTotalTodayMorning, 0);
    stats.sample(Date.now() + 86_400_000);
    assert.equal(stats.putTotalTodayMorning, 5);
    stats.putTotal = 9;
    stats.sample(Date.now() + 2 * 86_400_000);
    assert.equal(stats.putTotalTodayMorning, 9);
    assert.equal(stats.putTotalYesterdayMorning, 5);
  });

  it('a broker with brokerId other than 0 is rejected: slaves are not supported', () => {
    assert.throws(
      () => validateBrokerOptions({ brokerId: 1 }),
      (e: InvalidArgumentError) => e.field === 'brokerId' && /slaves are not supported/.test(e.message),
    );
  });

  it('topic perms registered by a broker are masked with brokerPermission', () => {
    const wrapper = {
      dataVersion: { counter: 1, timestamp: 1 },
      topicConfigTable: {
        T: {
          topicName: 'T',
          readQueueNums: 1,
          writeQueueNums: 1,
          perm: 6,
          topicFilterType: 'SINGLE_TAG' as const,
          topicSysFlag: 0,
          order: false,
        },
      },
    };
    assert.equal(maskTopicPerms(wrapper, 4).topicConfigTable.T?.perm, 4);
    assert.equal(maskTopicPerms(wrapper, 2).topicConfigTable.T?.perm, 2);
    assert.equal(maskTopicPerms(wrapper, 6).topicConfigTable.T?.perm, 6);
  });
});
