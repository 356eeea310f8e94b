import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ConsumerClient } from '../../src/consumer/core/client-port.js';
import {
  ConcurrentConsumeService,
  type ConsumeContext,
} from '../../src/consumer/push/consume-concurrently.js';
import { HandlerPool } from '../../src/consumer/core/handler-pool.js';
import { BackgroundTasks } from '../../src/consumer/core/background-tasks.js';
import type { ConsumerMessage } from '../../src/consumer/core/message-view.js';
import { ProcessQueue } from '../../src/consumer/core/process-queue.js';
import type { QueueEntry } from '../../src/consumer/core/pull-loop.js';
import { SendBack } from '../../src/consumer/core/send-back.js';
import { silentLogger } from '../../src/observability/logger.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import {
  createResponse,
  DEFAULT_COMMAND_DEFAULTS,
  type RemotingCommand,
} from '../../src/protocol/command.js';
import { SendMessageV2 } from '../../src/protocol/headers/send.js';
import { decodeProperties } from '../../src/protocol/message/properties.js';

const mq = { topic: 'T', brokerName: 'broker-a', queueId: 0 };

function message(queueOffset: number, reconsumeTimes = 0): ConsumerMessage {
  return {
    topic: 'T',
    body: Buffer.from(`b${queueOffset}`),
    tags: 'TagA',
    keys: ['k'],
    properties: { user: 'u' },
    systemProperties: { UNIQ_KEY: `ID${queueOffset}`, TAGS: 'TagA', KEYS: 'k', MIN_OFFSET: '0' },
    msgId: `ID${queueOffset}`,
    offsetMsgId: `OFF${queueOffset}`,
    queue: mq,
    queueOffset,
    commitLogOffset: 1000 + queueOffset,
    reconsumeTimes,
    bornTimestamp: 1,
    storeTimestamp: 2,
    bornHost: { address: '127.0.0.1', port: 1 },
    storeHost: { address: '127.0.0.1', port: 2 },
    delayTimeLevel: 0,
    sysFlag: 0,
    flag: 0,
    bodyCRC: 0,
    preparedTransactionOffset: 0,
    transactionId: undefined,
  };
}

/** A client whose broker answers each request code with what `answer` says (or throws). */
function fakeClient(answer: (cmd: RemotingCommand) => number | Error): {
  client: ConsumerClient;
  sent: RemotingCommand[];
} {
  const sent: RemotingCommand[] = [];
  const client: ConsumerClient = {
    clientId: '127.0.0.1@test',
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    request: (_address, cmd) => {
      sent.push(cmd);
      const a = answer(cmd);
      return a instanceof Error ? Promise.reject(a) : Promise.resolve(createResponse(cmd, a));
    },
    oneway: () => Promise.resolve(),
    subscribeQueues: () => Promise.resolve([mq]),
    masterAddress: (name) => (name === 'broker-a' ? '127.0.0.1:10911' : '127.0.0.1:10912'),
    brokerNames: () => ['broker-a', 'broker-b'],
    sendHeartbeatToAllBrokers: () => Promise.resolve(),
  };
  return { client, sent };
}

const settings = {
  group: 'G',
  namespace: undefined,
  maxReconsumeTimes: 16,
  unitMode: false,
  timeoutMs: 3000,
};

test('send-back: CONSUMER_SEND_MSG_BACK first, with the commit-log offset and the original id', async () => {
  const { client, sent } = fakeClient(() => ResponseCode.SUCCESS);
  assert.equal(await new SendBack(client, settings, silentLogger).sendBack(message(5, 2)), true);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]!.code, RequestCode.CONSUMER_SEND_MSG_BACK);
  assert.equal(sent[0]!.extFields?.offset, '1005');
  assert.equal(sent[0]!.extFields?.originMsgId, 'ID5');
  assert.equal(sent[0]!.extFields?.delayLevel, '0', 'the broker picks 3 + reconsumeTimes');
  assert.equal(sent[0]!.extFields?.maxReconsumeTimes, '16');
});

test('send-back: when the broker refuses, the message is re-sent to %RETRY%<group> as Java does', async () => {
  const { client, sent } = fakeClient((cmd) =>
    cmd.code === RequestCode.CONSUMER_SEND_MSG_BACK ? new Error('timeout') : ResponseCode.SUCCESS,
  );
  assert.equal(await new SendBack(client, settings, silentLogger).sendBack(message(5, 2)), true);
  assert.equal(sent.length, 2);
  const h = SendMessageV2.decode(sent[1]!.extFields);
  assert.equal(h.topic, '%RETRY%G');
  assert.equal(h.producerGroup, 'CLIENT_INNER_PRODUCER');
  assert.equal(h.reconsumeTimes, 3);
  assert.equal(h.maxReconsumeTimes, 16);
  const props = decodeProperties(h.properties ?? '');
  assert.equal(props.RETRY_TOPIC, 'T');
  assert.equal(props.ORIGIN_MESSAGE_ID, 'ID5');
  assert.equal(props.UNIQ_KEY, 'ID5', 'the retry keeps the client id');
  assert.equal(props.DELAY, '5', 'delay level 3 + reconsumeTimes');
  assert.equal(props.user, 'u');
  assert.equal(props.MIN_OFFSET, undefined, 'client-side properties are not sent');
  assert.deepEqual(Buffer.from(sent[1]!.body!), Buffer.from('b5'));
});

test('a failed message neither broker takes back stays cached and is consumed again here', async () => {
  let brokerUp = false;
  const { client } = fakeClient(() => (brokerUp ? ResponseCode.SUCCESS : new Error('down')));
  const pq = new ProcessQueue<ConsumerMessage>();
  const entry: QueueEntry = { key: 'k', mq, pq, nextOffset: 0 };
  const calls: Array<[number, number]> = [];
  const offsets: number[] = [];
  const laters: Array<() => void> = [];
  const life = new BackgroundTasks();
  const ctx: ConsumeContext = {
    pool: new HandlerPool(4, 60_000),
    sendBack: new SendBack(client, settings, silentLogger),
    logger: silentLogger,
    clustering: true,
    batchMaxSize: 1,
    isRunning: () => true,
    invoke: (ms) => {
      calls.push([ms[0]!.queueOffset, ms[0]!.reconsumeTimes]);
      if (ms[0]!.queueOffset === 0 && ms[0]!.reconsumeTimes === 0) throw new Error('fail');
    },
    record: () => undefined,
    trace: () => ({ consumerGroup: 'G', topic: 'T', brokerName: 'b', queueId: 0, offsets: [], msgIds: [] }),
    updateOffset: (_mq, offset) => void offsets.push(offset),
    handlerFailed: () => undefined,
    later: (_ms, fn) => void laters.push(fn),
    track: (task) => life.track(task),
    taskBegun: () => life.taskBegun(),
    taskEnded: () => life.taskEnded(),
  };
  const service = new ConcurrentConsumeService(ctx);
  const list = [message(0), message(1)];
  pq.putMessages(list);
  service.submit(entry, list);
  assert.ok(await life.whenTasksDone(10_000), 'the consume calls finished');
  assert.equal(pq.msgCount, 1, 'the failed message stays cached');
  assert.ok(offsets.length > 0 && offsets.every((o) => o === 0), 'the commit offset stays below it');
  assert.equal(laters.length, 1);
  brokerUp = true;
  laters[0]!();
  assert.ok(await life.whenTasksDone(10_000), 'the consume calls finished');
  assert.deepEqual(calls, [
    [0, 0],
    [1, 0],
    [0, 1],
  ]);
  assert.equal(pq.msgCount, 0);
  assert.equal(offsets.at(-1), 2, 'then moves past both');
});

test('shutdown waits for counted consume calls, and only as long as it is allowed to', async () => {
  const life = new BackgroundTasks();
  assert.equal(await life.whenTasksDone(10), true, 'nothing running');
  life.taskBegun();
  life.taskBegun();
  assert.equal(await life.whenTasksDone(30), false, 'two calls still running');
  setTimeout(() => life.taskEnded(), 10);
  setTimeout(() => life.taskEnded(), 20);
  assert.equal(await life.whenTasksDone(5000), true, 'both ended');
});
