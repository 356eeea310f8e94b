/**
 * Lite pull reads from the member the broker suggests (pull-broker-selection.ts, wired in
 * lite-pull-parts.ts): the pull loop of a lite consumer runs against a fake broker group (a
 * master and a slave) that answers like a 4.9 broker with `slaveReadEnable`.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsumerClient, ConsumerScope } from '../../src/consumer/core/client-port.js';
import { ConsumeStats } from '../../src/consumer/core/consume-stats.js';
import { resolveLitePullConsumerOptions } from '../../src/consumer/lite-pull/options.js';
import { liteParts } from '../../src/consumer/lite-pull/parts.js';
import { LiteSubscriptions } from '../../src/consumer/lite-pull/subscriptions.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import type { OffsetStore } from '../../src/consumer/offset-store/offset-store.js';
import { ProcessQueue } from '../../src/consumer/core/process-queue.js';
import { runPullLoop, type QueueEntry } from '../../src/consumer/core/pull-loop.js';
import { mqKey } from '../../src/protocol/body/message-queue-map.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import {
  createResponse,
  DEFAULT_COMMAND_DEFAULTS,
  type RemotingCommand,
} from '../../src/protocol/command.js';
import {
  PullMessage,
  PullMessageResponse,
  hasPullSysFlag,
  PullSysFlag,
} from '../../src/protocol/headers/pull.js';
import { encodeStoredMessage } from '../../src/protocol/message/stored-message.js';
import { silentLogger } from '../../src/observability/logger.js';

const MASTER = '127.0.0.1:10911';
const SLAVE = '127.0.0.1:10921';
const TOPIC = 'LiteSlaveReads';
const MQ = { topic: TOPIC, brokerName: 'broker-b', queueId: 0 };

function stored(offset: number): Buffer {
  return encodeStoredMessage({
    queueId: 0,
    flag: 0,
    queueOffset: offset,
    physicalOffset: offset * 100,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000,
    bornHost: { address: '127.0.0.1', port: 50000 },
    storeTimestamp: 1_700_000_000_001,
    storeHost: { address: '127.0.0.1', port: 10911 },
    reconsumeTimes: 0,
    preparedTransactionOffset: 0,
    body: Buffer.from(`m${offset}`),
    topic: TOPIC,
    properties: '',
  });
}

interface Pull {
  address: string;
  offset: number;
  commitFlag: boolean;
}

/**
 * A master and a slave holding `count` messages: the master suggests the slave while the reader
 * is more than `lagLimit` behind (4.9: beyond the master's memory), the slave suggests the master
 * once it caught up. After `slaveDiesAfter` pulls there, every pull to the slave fails like a
 * dead connection.
 */
function brokerGroup(count: number, lagLimit: number, slaveDiesAfter = Infinity) {
  const pulls: Pull[] = [];
  let slavePulls = 0;
  const request = (address: string, cmd: RemotingCommand): Promise<RemotingCommand> => {
    assert.equal(cmd.code, PullMessage.code);
    const h = PullMessage.decode(cmd.extFields);
    pulls.push({
      address,
      offset: h.queueOffset,
      commitFlag: hasPullSysFlag(h.sysFlag, PullSysFlag.FLAG_COMMIT_OFFSET),
    });
    if (address === SLAVE && ++slavePulls > slaveDiesAfter)
      return Promise.reject(new Error('connection refused'));
    if (h.queueOffset >= count) {
      // Nothing new: a short long-poll, then PULL_NOT_FOUND with the master suggested.
      return new Promise((resolve) =>
        setTimeout(
          () =>
            resolve(
              createResponse(
                cmd,
                ResponseCode.PULL_NOT_FOUND,
                undefined,
                PullMessageResponse.encode({
                  suggestWhichBrokerId: 0,
                  nextBeginOffset: h.queueOffset,
                  minOffset: 0,
                  maxOffset: count,
                }),
              ),
            ),
          5,
        ),
      );
    }
    const next = h.queueOffset + 1;
    const behind = count - next;
    return Promise.resolve(
      createResponse(
        cmd,
        ResponseCode.SUCCESS,
        undefined,
        PullMessageResponse.encode({
          suggestWhichBrokerId: behind > lagLimit ? 1 : 0,
          nextBeginOffset: next,
          minOffset: 0,
          maxOffset: count,
        }),
        stored(h.queueOffset),
      ),
    );
  };
  return { pulls, request };
}

function liteLoop(group: ReturnType<typeof brokerGroup>) {
  const options = resolveLitePullConsumerOptions({
    consumerGroup: 'lite_slave_reads',
    namesrvAddr: '127.0.0.1:9876',
    pullTimeDelayMillsWhenException: 10,
    pullBatchSize: 1,
  });
  const members = new Map([
    [0, MASTER],
    [1, SLAVE],
  ]);
  const client: ConsumerClient = {
    clientId: 'test',
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    request: (address, cmd) => group.request(address, cmd),
    oneway: () => Promise.resolve(),
    subscribeQueues: () => Promise.resolve([MQ]),
    masterAddress: () => MASTER,
    groupMembers: (name) => (name === MQ.brokerName ? members : undefined),
    brokerNames: () => [MQ.brokerName],
    sendHeartbeatToAllBrokers: () => Promise.resolve(),
  };
  const scope: ConsumerScope = {
    client,
    options,
    group: 'lite_slave_reads',
    logger: silentLogger,
    clustering: true,
    orderly: false,
  };
  const subs = new LiteSubscriptions(undefined);
  const received: ConsumerMessage[] = [];
  let running = true;
  const { pullCtx } = liteParts(scope, {
    offsetStore: {} as OffsetStore,
    topics: () => [],
    startQueue: () => undefined,
    assignMode: () => true,
    restartQueue: () => undefined,
    isRunning: () => running,
    isPaused: () => false,
    overAllThreshold: () => false,
    subscription: (topic) => subs.forPull(topic, true),
    dispatch: (entry, messages) => {
      received.push(...messages);
      // The lite consumer's poll() takes them; here they leave the queue at once.
      entry.pq.removeMessages(messages);
    },
    later: () => undefined,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    stats: new ConsumeStats(),
    rebalanced: () => undefined,
  });
  const entry: QueueEntry = {
    key: mqKey(MQ),
    mq: MQ,
    pq: new ProcessQueue<ConsumerMessage>(),
    nextOffset: 0,
  };
  const done = runPullLoop(pullCtx, entry);
  return {
    pullCtx,
    received,
    async until(check: () => boolean): Promise<void> {
      const deadline = Date.now() + 5000;
      while (!check()) {
        if (Date.now() > deadline)
          throw new Error(`timed out; pulls ${JSON.stringify(group.pulls.slice(-5))}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async stop(): Promise<void> {
      running = false;
      entry.pq.dropped = true;
      await done;
    },
  };
}

describe('lite pull: slave reads (PullBrokerSelection as lite pull uses it)', () => {
  it('the lite consumer wires the shared selection into its pull loop', async () => {
    const loop = liteLoop(brokerGroup(0, 0));
    assert.ok(loop.pullCtx.pullFrom !== undefined, 'a selection whenever the client knows group members');
    await loop.stop();
  });

  it('a lagging reader is sent to the slave, pulls there without commit offset, back to the master once caught up', async () => {
    const group = brokerGroup(20, 5);
    const loop = liteLoop(group);
    try {
      await loop.until(() => loop.received.length === 20);
      const first = group.pulls[0]!;
      assert.equal(first.address, MASTER, 'the first pull goes to the master');
      const fromSlave = group.pulls.filter((p) => p.address === SLAVE);
      // Offsets 1..14 are more than 5 behind the end when pulled: the master sent them to the slave.
      assert.ok(fromSlave.length >= 10, `pulls served by the slave: ${fromSlave.length}`);
      assert.ok(
        fromSlave.every((p) => !p.commitFlag),
        'no pull carries a commit offset (lite pull commits apart, to the master)',
      );
      // Caught up (within 5): the slave says "master" and the reader goes back.
      const last = group.pulls[group.pulls.length - 1]!;
      assert.equal(last.address, MASTER);
      assert.deepEqual(
        loop.received.map((m) => m.queueOffset),
        Array.from({ length: 20 }, (_, i) => i),
        'every message once, in order',
      );
    } finally {
      await loop.stop();
    }
  });

  it('the slave dies: the next pull goes to the master at once and reading continues', async () => {
    // Offsets 1..8 are read from the slave while it lives; it dies after serving three.
    const group = brokerGroup(40, 30, 3);
    const loop = liteLoop(group);
    try {
      await loop.until(() => loop.received.length === 40);
      const slavePulls = group.pulls.flatMap((p, i) => (p.address === SLAVE ? [i] : []));
      assert.equal(slavePulls.length, 4, 'three served, one failed; the dead slave is not asked again');
      const failed = slavePulls[3]!;
      assert.equal(group.pulls[failed + 1]?.address, MASTER, 'the very next pull goes to the master');
      assert.equal(group.pulls[failed + 1]?.offset, group.pulls[failed]!.offset, 'at the same offset');
      assert.deepEqual(
        loop.received.map((m) => m.queueOffset),
        Array.from({ length: 40 }, (_, i) => i),
      );
    } finally {
      await loop.stop();
    }
  });
});
