/**
 * The ACL holes of issue 27 (findings 1, 4, 5, 6), each as the scenario that exposed it: a
 * batch or reply send into a denied topic, a non-admin switching fault injection on, a
 * non-subscriber reading the log by offset, and secrets quoted in logs.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidArgumentError } from '../../../src/errors.js';
import type { Logger } from '../../../src/observability/logger.js';
import { signRequest } from '../../../src/protocol/acl.js';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { createRequest, type RemotingCommand } from '../../../src/protocol/command.js';
import { encodeBatch } from '../../../src/protocol/message/batch.js';
import { Producer } from '../../../src/producer/producer.js';
import { AclSource } from '../../../src/server/acl/acl-source.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { FAULT_INJECTION_REQUEST_CODE } from '../../../src/server/broker/faults.js';
import { Rpc, sendV2Header } from '../broker/rpc-helpers.js';
import { ADMIN, TEST_ACL, USER } from './helpers.js';

type Account = { accessKey: string; secretKey: string };

/** Records every log line with its meta as JSON, to search for leaked secrets. */
export function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (msg: string, meta?: object): void => {
      lines.push(
        `${level} ${msg} ${JSON.stringify(meta ?? {}, (_k, v: unknown) => (v instanceof Error ? v.message : v))}`,
      );
    };
  return { lines, debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error') };
}

const signed = (cmd: RemotingCommand, who: Account): RemotingCommand => {
  signRequest(cmd, who.accessKey, who.secretKey);
  return cmd;
};

const batchSend = (topic: string): RemotingCommand =>
  createRequest(
    RequestCode.SEND_BATCH_MESSAGE,
    { ...sendV2Header({ topic, body: 'x' }), m: 'true' },
    encodeBatch([
      { body: Buffer.from('a'), flag: 0, properties: '' },
      { body: Buffer.from('b'), flag: 0, properties: '' },
    ]),
  );

describe('ACL holes (issue 27)', () => {
  let cluster: EmbeddedCluster;
  let rpc: Rpc;
  const ask = (cmd: RemotingCommand, who: Account): Promise<RemotingCommand> =>
    rpc.conn.request(signed(cmd, who), 5000);

  before(async () => {
    cluster = await EmbeddedCluster.start({
      brokers: 1,
      faultInjection: true,
      brokerOptions: { acl: TEST_ACL, autoCreateTopicEnable: true },
    });
    rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    await cluster.createTopic('TopicOk', 1);
    await cluster.createTopic('TopicOther', 1);
  });
  after(async () => {
    rpc?.close();
    await cluster?.stop();
  });

  const broker = () => cluster.broker('broker-a');

  it('a DENY account sends a batch (320) to a denied topic: refused, nothing stored', async () => {
    const before = broker().store.getMaxOffset('TopicOther', 0);
    const r = await ask(batchSend('TopicOther'), USER);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.equal(broker().store.getMaxOffset('TopicOther', 0), before);
  });

  it('a DENY account sends a batch (320) to a missing topic: refused, the topic is not created', async () => {
    const r = await ask(batchSend('TopicNeverCreated'), USER);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.equal(broker().topics.get('TopicNeverCreated'), undefined);
  });

  it('the same batch to a topic the account may publish to is stored', async () => {
    const r = await ask(batchSend('TopicOk'), USER);
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  });

  it('reply sends (324 with long names, 325 with V2 keys) to a denied topic are refused', async () => {
    const v2 = sendV2Header({ topic: 'TopicOther', body: 'x' });
    const r325 = await ask(createRequest(RequestCode.SEND_REPLY_MESSAGE_V2, v2, Buffer.from('x')), USER);
    assert.equal(r325.code, ResponseCode.NO_PERMISSION, r325.remark);
    const v1 = {
      producerGroup: 'PG',
      topic: 'TopicOther',
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: '4',
      queueId: '0',
      sysFlag: '0',
      bornTimestamp: String(Date.now()),
      flag: '0',
      properties: '',
      reconsumeTimes: '0',
      unitMode: 'false',
      batch: 'false',
    };
    const r324 = await ask(createRequest(RequestCode.SEND_REPLY_MESSAGE, v1, Buffer.from('x')), USER);
    assert.equal(r324.code, ResponseCode.NO_PERMISSION, r324.remark);
  });

  it('a non-admin account cannot switch fault injection (9901) on', async () => {
    const r = await ask(createRequest(FAULT_INJECTION_REQUEST_CODE, { hang: 'SEND_MESSAGE_V2' }), USER);
    assert.equal(r.code, ResponseCode.NO_PERMISSION, r.remark);
    assert.deepEqual(broker().faults.current(), {});
  });

  it('a non-subscriber reads a message by commit-log offset (33): refused; a subscriber reads it', async () => {
    const sent = await ask(
      createRequest(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic: 'TopicOther', body: 'secret' }),
        Buffer.from('secret'),
      ),
      ADMIN,
    );
    assert.equal(sent.code, ResponseCode.SUCCESS, sent.remark);
    const offset = broker().store.maxPhysicalOffset;
    const view = (at: number): RemotingCommand =>
      createRequest(RequestCode.VIEW_MESSAGE_BY_ID, { offset: String(at) });
    // The last message is the admin's; its start is found by viewing from 0 as the admin.
    let at = 0;
    let last: number | undefined;
    while (at < offset) {
      const r = await ask(view(at), ADMIN);
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      last = at;
      at += Buffer.from(r.body!).readInt32BE(0);
    }
    const denied = await ask(view(last!), USER);
    assert.equal(denied.code, ResponseCode.NO_PERMISSION, denied.remark);
    assert.equal(denied.body, undefined);
    assert.ok(!(denied.remark ?? '').includes('TopicOther'), denied.remark);
    // The batch to TopicOk was stored first: offset 0 is USER's own topic.
    const allowed = await ask(view(0), USER);
    assert.equal(allowed.code, ResponseCode.SUCCESS, allowed.remark);
  });

  it("a DENY account ends another account's transaction by its offset (37, 4.9 header): refused, nothing committed", async () => {
    const prepared = await ask(
      createRequest(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({
          topic: 'TopicOther',
          body: 'half',
          sysFlag: 4,
          props: { TRAN_MSG: 'true', PGROUP: 'PG' },
        }),
        Buffer.from('half'),
      ),
      ADMIN,
    );
    assert.equal(prepared.code, ResponseCode.SUCCESS, prepared.remark);
    const halfOffset = Number(BigInt('0x' + prepared.extFields!['msgId']!.slice(-16)));
    const end = (): RemotingCommand =>
      createRequest(RequestCode.END_TRANSACTION, {
        producerGroup: 'PG',
        tranStateTableOffset: '0',
        commitLogOffset: String(halfOffset),
        commitOrRollback: '8',
        fromTransactionCheck: 'false',
        msgId: prepared.extFields!['msgId']!,
      });
    const committed = (): number => broker().store.getMaxOffset('TopicOther', 0);
    const before = committed();
    const denied = await ask(end(), USER);
    assert.equal(denied.code, ResponseCode.NO_PERMISSION, denied.remark);
    assert.ok(!(denied.remark ?? '').includes('TopicOther'), denied.remark);
    assert.equal(committed(), before);
    assert.equal(broker().transactions.isResolved(halfOffset), false);
    const allowed = await ask(end(), ADMIN);
    assert.equal(allowed.code, ResponseCode.SUCCESS, allowed.remark);
    assert.equal(committed(), before + 1);
  });

  it('a non-admin GET_BROKER_CONFIG (26) gets only the settings clients read, not paths', async () => {
    const r = await ask(createRequest(RequestCode.GET_BROKER_CONFIG, {}), USER);
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    const keys = Buffer.from(r.body ?? [])
      .toString('utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => l.slice(0, l.indexOf('=')))
      .sort();
    assert.deepEqual(keys, ['rocketmqTsTimerWheel', 'timerMaxDelaySec', 'timerWheelEnable']);
    const full = await ask(createRequest(RequestCode.GET_BROKER_CONFIG, {}), ADMIN);
    assert.match(Buffer.from(full.body ?? []).toString('utf8'), /storePathRootDir=/);
  });

  it("a non-admin producer's timer message reaches an ACL broker (the timer check asks GET_BROKER_CONFIG)", async () => {
    const producer = new Producer({
      producerGroup: 'PG_timer_acl',
      namesrvAddr: cluster.namesrvAddr,
      credentials: USER,
    });
    await producer.start();
    try {
      const r = await producer.send({ topic: 'TopicOk', body: 'later', deliverAfterMs: 1000 });
      assert.equal(r.status, 'SEND_OK');
    } finally {
      await producer.shutdown();
    }
  });
});

describe('secrets stay out of logs and errors', () => {
  const SECRET = 'very-secret-value-42';
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'acl-secret-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const good = `accounts:\n  - accessKey: RocketMQUser\n    secretKey: ${SECRET}\n    defaultTopicPerm: PUB\n`;
  const malformed = `accounts:\n  - accessKey: RocketMQUser\n    secretKey "${SECRET}"\n`;
  const unterminated = `accounts:\n  - accessKey: RocketMQUser\n    secretKey: "${SECRET}\n`;

  it('a malformed plain_acl.yml line at start is reported without its secret', () => {
    for (const text of [malformed, unterminated]) {
      const file = join(dir, 'start.yml');
      writeFileSync(file, text);
      const err = (() => {
        try {
          new AclSource(file, recordingLogger()).close();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      assert.ok(err instanceof InvalidArgumentError, String(err));
      assert.match(err.message, /line 3/);
      assert.ok(!err.message.includes(SECRET), err.message);
    }
  });

  it('a malformed plain_acl.yml on hot reload is logged without its secret', async () => {
    const file = join(dir, 'reload.yml');
    writeFileSync(file, good);
    const logger = recordingLogger();
    const source = new AclSource(file, logger);
    try {
      const reloaded = source.nextReload();
      writeFileSync(file, malformed);
      // The file watcher is unref'd: a timer keeps the loop alive until the reload is seen.
      const keepAlive = setTimeout(() => undefined, 60_000);
      await reloaded.finally(() => clearTimeout(keepAlive));
      const failed = logger.lines.filter((l) => l.includes('reload failed'));
      assert.equal(failed.length, 1, logger.lines.join('\n'));
      assert.match(failed[0]!, /line 3/);
      assert.ok(!logger.lines.some((l) => l.includes(SECRET)), logger.lines.join('\n'));
    } finally {
      source.close();
    }
  });

  it('a client that swaps its access and secret keys is refused and its secret is not logged', async () => {
    const logger = recordingLogger();
    const cluster = await EmbeddedCluster.start({ brokers: 1, logger, brokerOptions: { acl: TEST_ACL } });
    const rpc = await Rpc.connect(cluster.brokers[0]!.addr);
    try {
      const cmd = createRequest(
        RequestCode.SEND_MESSAGE_V2,
        sendV2Header({ topic: 'TopicOk', body: 'x' }),
        Buffer.from('x'),
      );
      signRequest(cmd, USER.secretKey, USER.accessKey);
      const r = await rpc.conn.request(cmd, 5000);
      assert.equal(r.code, ResponseCode.NO_PERMISSION);
      const refused = logger.lines.filter((l) => l.includes('ACL refused'));
      assert.equal(refused.length, 1, logger.lines.join('\n'));
      assert.ok(!logger.lines.some((l) => l.includes(USER.secretKey)), logger.lines.join('\n'));
    } finally {
      rpc.close();
      await cluster.stop();
    }
  });
});
