/**
 * Issue 27, finding 2: a name the store can never hold (`x/../../y`) must be refused where it
 * enters the broker, in every request that names a group or topic, and a message that can never
 * be delivered (one stored before this check existed) must not stall the queue behind it. The
 * attacker speaks the wire itself, with the package's own `remoting` and `protocol` exports.
 */
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ConsumerSendMsgBack,
  EndTransaction,
  PopMessage,
  RequestCode,
  ResponseCode,
  UpdateConsumerOffset,
  createRequest,
  decodeOffsetMsgId,
  encodeProperties,
  type RemotingCommand,
} from '../../../src/protocol/index.js';
import { Connection } from '../../../src/remoting/index.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import type { MessageToStore } from '../../../src/server/store/types.js';
import { capturingLogger } from '../../remoting/helpers.js';
import { heartbeatBody, sendV2Header, uniqueName, waitFor } from './rpc-helpers.js';

const POISON = 'x/../../y';

describe('names validated at the edge of the broker', () => {
  const logger = capturingLogger();
  let cluster: EmbeddedCluster;
  let attacker: Connection;
  let topic: string;

  const request = (code: number, header: object, body?: Uint8Array): Promise<RemotingCommand> =>
    attacker.request(createRequest(code, header, body), 10_000);
  const broker = (): EmbeddedCluster['brokers'][number]['broker'] => cluster.brokers[0]!.broker;
  const topicsWithSlash = (): string[] =>
    broker()
      .topics.topics()
      .map((t) => t.topicName)
      .filter((n) => n.includes('/'));

  /** A message as the broker hands it to its store, to `t` with `props`. */
  function message(t: string, props: Record<string, string>): MessageToStore {
    const b = broker();
    return {
      topic: t,
      queueId: 0,
      flag: 0,
      sysFlag: 0,
      bornTimestamp: Date.now(),
      bornHost: b.storeHost,
      storeHost: b.storeHost,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0,
      body: Buffer.from('parked'),
      properties: encodeProperties(props),
    };
  }

  async function send(t: string, props: Record<string, string> = {}): Promise<RemotingCommand> {
    const response = await request(
      RequestCode.SEND_MESSAGE_V2,
      sendV2Header({ topic: t, body: 'b', props }),
      Buffer.from('b'),
    );
    assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
    return response;
  }

  before(async () => {
    cluster = await EmbeddedCluster.start({ brokers: 1, logger });
    attacker = await Connection.connect(cluster.brokers[0]!.addr);
    topic = uniqueName('Edge');
    await cluster.createTopic(topic, 1);
  });
  after(async () => {
    attacker.close();
    await cluster.stop();
  });

  it('a send-back for the group x/../../y is refused, and delay level 1 still delivers', async () => {
    const sent = await send(topic);
    const { offset } = decodeOffsetMsgId(sent.extFields!['msgId']!);
    const back = await request(
      RequestCode.CONSUMER_SEND_MSG_BACK,
      ConsumerSendMsgBack.encode({ offset, group: POISON, delayLevel: 1, unitMode: false }),
    );
    assert.notEqual(back.code, ResponseCode.SUCCESS, 'the poisoned send-back is refused');
    assert.match(back.remark ?? '', /group/);
    assert.deepEqual(topicsWithSlash(), []);

    // A normal delayed message (level 1 = 1 s) arrives in its topic.
    const delayed = uniqueName('EdgeDelayed');
    await cluster.createTopic(delayed, 1);
    await send(delayed, { DELAY: '1' });
    await waitFor(() => broker().store.getMaxOffset(delayed, 0) === 1, 30_000, 'the delayed message arrived');
  });

  it('offsets, POP, transactions, heartbeats and subscription groups refuse such names too', async () => {
    const cases: Array<[string, Promise<RemotingCommand>]> = [
      [
        'UPDATE_CONSUMER_OFFSET',
        request(
          RequestCode.UPDATE_CONSUMER_OFFSET,
          UpdateConsumerOffset.encode({ consumerGroup: POISON, topic, queueId: 0, commitOffset: 1 }),
        ),
      ],
      [
        'POP_MESSAGE',
        request(
          RequestCode.POP_MESSAGE,
          PopMessage.encode({
            consumerGroup: 'p/../q',
            topic,
            queueId: -1,
            maxMsgNums: 1,
            invisibleTime: 1000,
            pollTime: 0,
            bornTime: Date.now(),
            initMode: 0,
          }),
        ),
      ],
      [
        'END_TRANSACTION',
        request(
          RequestCode.END_TRANSACTION,
          EndTransaction.encode({
            producerGroup: POISON,
            tranStateTableOffset: 0,
            commitLogOffset: 0,
            commitOrRollback: 8,
            fromTransactionCheck: false,
            msgId: 'AC',
          }),
        ),
      ],
      [
        'HEART_BEAT (consumer group)',
        request(RequestCode.HEART_BEAT, {}, heartbeatBody('attacker@1', POISON, [{ topic }])),
      ],
      [
        'HEART_BEAT (subscribed topic)',
        request(RequestCode.HEART_BEAT, {}, heartbeatBody('attacker@1', 'EdgeGroup', [{ topic: '../t' }])),
      ],
      [
        'LOCK_BATCH_MQ (consumer group)',
        request(
          RequestCode.LOCK_BATCH_MQ,
          {},
          Buffer.from(JSON.stringify({ consumerGroup: POISON, clientId: 'attacker@1', mqSet: [] })),
        ),
      ],
      [
        'LOCK_BATCH_MQ (queue topic)',
        request(
          RequestCode.LOCK_BATCH_MQ,
          {},
          Buffer.from(
            JSON.stringify({
              consumerGroup: 'EdgeGroup',
              clientId: 'attacker@1',
              mqSet: [{ topic: '../t', brokerName: 'broker-a', queueId: 0 }],
            }),
          ),
        ),
      ],
      [
        'UNLOCK_BATCH_MQ (queue topic)',
        request(
          RequestCode.UNLOCK_BATCH_MQ,
          {},
          Buffer.from(
            JSON.stringify({
              consumerGroup: 'EdgeGroup',
              clientId: 'attacker@1',
              mqSet: [{ topic: POISON, brokerName: 'broker-a', queueId: 0 }],
            }),
          ),
        ),
      ],
      [
        'QUERY_ASSIGNMENT',
        request(
          RequestCode.QUERY_ASSIGNMENT,
          {},
          Buffer.from(
            JSON.stringify({
              topic,
              consumerGroup: POISON,
              clientId: 'attacker@1',
              strategyName: 'AVG',
              messageModel: 'CLUSTERING',
            }),
          ),
        ),
      ],
      [
        'UPDATE_AND_CREATE_SUBSCRIPTIONGROUP',
        request(
          RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
          {},
          Buffer.from(JSON.stringify({ groupName: POISON, consumeEnable: true })),
        ),
      ],
    ];
    for (const [name, pending] of cases) {
      const response = await pending;
      assert.notEqual(response.code, ResponseCode.SUCCESS, `${name} is refused`);
      assert.match(response.remark ?? '', /illegal characters/, `${name} says why`);
    }
    assert.deepEqual(topicsWithSlash(), [], 'no topic config was made for them');
    assert.equal(broker().subscriptionGroups.get(POISON), undefined);
    assert.equal(broker().store.consumerOffsets.get(POISON, topic, 0), undefined);
  });

  it('a message stored before the check, that can never be delivered, is skipped with a log line naming it', async () => {
    // As a store written by an older broker holds it: parked on delay level 1 for a bad retry topic.
    const b = broker();
    const put = await b.store.putMessage(
      message('SCHEDULE_TOPIC_XXXX', { REAL_TOPIC: `%RETRY%${POISON}`, REAL_QID: '0', DELAY: '1' }),
    );
    assert.equal(put.status, 'PUT_OK');
    const behind = uniqueName('EdgeBehind');
    await cluster.createTopic(behind, 1);
    await send(behind, { DELAY: '1' });
    await waitFor(() => b.store.getMaxOffset(behind, 0) === 1, 30_000, 'the message behind it arrived');
    const line = logger.entries.find((e) => JSON.stringify(e.meta ?? {}).includes(`%RETRY%${POISON}`));
    assert.ok(line, 'a log line names the skipped message');
    assert.equal(line.level, 'warn');
  });

  it('a timer message that can never be delivered does not hold back the later ones', async () => {
    const b = broker();
    const timer = (t: string, deliverMs: number): MessageToStore =>
      message(t, { TIMER_DELIVER_MS: String(deliverMs) });
    const later = uniqueName('EdgeTimer');
    await cluster.createTopic(later, 1);
    const due = Date.now() + 1500;
    // Parked by the broker's own put path (as an older broker stored it), due first.
    assert.equal((await b.putMessage(timer(`%RETRY%${POISON}`, due))).status, 'PUT_OK');
    assert.equal((await b.putMessage(timer(later, due + 100))).status, 'PUT_OK');
    await waitFor(() => b.store.getMaxOffset(later, 0) === 1, 30_000, 'the later timer message arrived');
    assert.ok(logger.entries.some((e) => e.level === 'warn' && e.msg.startsWith('timer:')));
  });
});
