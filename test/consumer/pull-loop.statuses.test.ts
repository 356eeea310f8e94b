/**
 * The pull loop's answer to each pull status (docs/consumers.md §1.3), against a scripted broker:
 * FLOW_CONTROL backs off 20 ms, PULL_NOT_FOUND and PULL_RETRY_IMMEDIATELY move the offset on
 * (and commit it when nothing is cached), PULL_OFFSET_MOVED hands the broker's offset over and
 * ends the loop, a refusal waits pullTimeDelayMillsWhenException.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerClient } from '../../src/consumer/core/client-port.js';
import { queueThresholds } from '../../src/consumer/core/flow-control.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { resolvePushConsumerOptions } from '../../src/consumer/push/options.js';
import { ProcessQueue } from '../../src/consumer/core/process-queue.js';
import {
  PULL_DELAY,
  runPullLoop,
  type PullContext,
  type QueueEntry,
} from '../../src/consumer/core/pull-loop.js';
import { buildSubscriptionData } from '../../src/consumer/core/subscription.js';
import { silentLogger } from '../../src/observability/logger.js';
import { ResponseCode } from '../../src/protocol/codes.js';
import {
  createResponse,
  DEFAULT_COMMAND_DEFAULTS,
  type RemotingCommand,
} from '../../src/protocol/command.js';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

interface Step {
  code: number;
  nextBeginOffset?: number;
}

/** Runs one pull loop over `script` (one answer per pull); the loop stops after the script. */
async function run(script: Step[]): Promise<{
  pulledAt: number[];
  sleeps: number[];
  committed: number[];
  moved: number[];
  entry: QueueEntry;
}> {
  const pulledAt: number[] = [];
  const sleeps: number[] = [];
  const committed: number[] = [];
  const moved: number[] = [];
  const options = resolvePushConsumerOptions({ consumerGroup: 'G', namesrvAddr: '127.0.0.1:9876' });
  const entry: QueueEntry = { key: 'k', mq, pq: new ProcessQueue<ConsumerMessage>(), nextOffset: 5 };
  let step = 0;
  const client: ConsumerClient = {
    clientId: '127.0.0.1@test',
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    request: (_address, cmd: RemotingCommand) => {
      pulledAt.push(Number(cmd.extFields?.['queueOffset']));
      const s = script[step++];
      if (s === undefined) {
        entry.pq.dropped = true; // script done: the loop ends at its next check
        return Promise.resolve(createResponse(cmd, ResponseCode.PULL_NOT_FOUND, undefined, header(5)));
      }
      return Promise.resolve(createResponse(cmd, s.code, 'scripted', header(s.nextBeginOffset ?? 5)));
    },
    oneway: () => Promise.resolve(),
    subscribeQueues: () => Promise.resolve([mq]),
    masterAddress: () => '127.0.0.1:10911',
    brokerNames: () => ['broker-a'],
    sendHeartbeatToAllBrokers: () => Promise.resolve(),
  };
  const data = buildSubscriptionData('T', '*');
  const ctx: PullContext = {
    client,
    options,
    group: 'G',
    logger: silentLogger,
    clustering: true,
    orderly: false,
    isRunning: () => true,
    isPaused: () => false,
    subscription: () => ({ data, tags: new Set(), pullVersion: data.subVersion }),
    thresholds: () => queueThresholds(options, 1),
    committedOffset: () => -1,
    updateOffset: (_mq, offset) => void committed.push(offset),
    dispatch: () => undefined,
    prepareOrderly: () => Promise.resolve(true),
    offsetMoved: (_entry, next) => void moved.push(next),
    subscriptionMissing: () => undefined,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  };
  await runPullLoop(ctx, entry);
  return { pulledAt, sleeps, committed, moved, entry };
}

function header(nextBeginOffset: number): object {
  return { suggestWhichBrokerId: 0, nextBeginOffset, minOffset: 0, maxOffset: 100 };
}

test('pull statuses: FLOW_CONTROL backs off 20 ms and pulls the same offset again', async () => {
  const r = await run([{ code: ResponseCode.FLOW_CONTROL }]);
  assert.deepEqual(r.sleeps, [PULL_DELAY.brokerFlowControl]);
  assert.deepEqual(r.pulledAt, [5, 5]);
});

test('pull statuses: PULL_NOT_FOUND and PULL_RETRY_IMMEDIATELY move on at once, committing the offset of an empty cache', async () => {
  const r = await run([
    { code: ResponseCode.PULL_NOT_FOUND, nextBeginOffset: 7 },
    { code: ResponseCode.PULL_RETRY_IMMEDIATELY, nextBeginOffset: 9 },
  ]);
  assert.deepEqual(r.pulledAt, [5, 7, 9]);
  assert.deepEqual(r.sleeps, [], 'no delay');
  assert.deepEqual(r.committed.slice(0, 2), [7, 9]);
});

test('pull statuses: PULL_OFFSET_MOVED hands the broker’s offset over and ends the loop', async () => {
  const r = await run([{ code: ResponseCode.PULL_OFFSET_MOVED, nextBeginOffset: 40 }]);
  assert.deepEqual(r.pulledAt, [5]);
  assert.deepEqual(r.moved, [40]);
  assert.equal(r.entry.nextOffset, 40);
  assert.deepEqual(r.committed, [], 'the offset is stored by the rebalancer, not here');
});

test('pull statuses: a refusal waits pullTimeDelayMillsWhenException and pulls the same offset again', async () => {
  const r = await run([{ code: ResponseCode.SYSTEM_ERROR }]);
  assert.deepEqual(r.sleeps, [3000]);
  assert.deepEqual(r.pulledAt, [5, 5]);
});
