/** `rocketmq-ts admin setConsumeMode` (mqadmin's flags) against an embedded cluster. */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import {
  encodeQueryAssignmentRequest,
  parseQueryAssignmentResponse,
} from '../../src/protocol/body/assignment.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { harness, unique } from '../consumer/helpers.js';
import { Rpc } from '../server/broker/rpc-helpers.js';
import { assertOneLineError, killAll, runCli } from './run-cli.js';

test.after(killAll);

test('admin setConsumeMode sets POP on every master of a cluster; bad input is one error line', async () => {
  const h = await harness({ brokers: 2 });
  const n = ['-n', h.cluster.namesrvAddr];
  try {
    const topic = unique('ModeT');
    const group = unique('ModeG');
    await h.cluster.createTopic(topic, 2);
    const r = await runCli([
      'admin',
      'setConsumeMode',
      ...n,
      '-c',
      'DefaultCluster',
      '-t',
      topic,
      '-g',
      group,
      '-m',
      'POP',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((r.stdout.match(/^set consume mode to 127\.0\.0\.1:\d+ success\.$/gm) ?? []).length, 2);
    assert.match(
      r.stdout,
      new RegExp(`topic\\[${topic}\\] group\\[${group}\\] consume mode\\[POP\\] popShareQueueNum\\[0\\]`),
    );
    const j = await runCli([
      'admin',
      'setConsumeMode',
      ...n,
      '-b',
      h.cluster.brokers[0]!.addr,
      '-t',
      topic,
      '-g',
      group,
      '-m',
      'POP',
      '-q',
      '1',
      '--json',
    ]);
    assert.equal(j.code, 0, j.stderr);
    assert.deepEqual((JSON.parse(j.stdout) as { popShareQueueNum: number }).popShareQueueNum, 1);
    // The broker answers a POP assignment (a request with no consumer online gets no valid answer,
    // so ask as a client that heartbeated).
    const rpc = await Rpc.connect(h.cluster.brokers[1]!.addr);
    try {
      const c = h.consumer({ consumerGroup: group, clientRebalance: false });
      c.subscribe(topic);
      await c.start(() => undefined);
      const q = await rpc.request(
        RequestCode.QUERY_ASSIGNMENT,
        undefined,
        encodeQueryAssignmentRequest({
          topic,
          consumerGroup: group,
          clientId: c.clientId,
          strategyName: 'AVG',
          messageModel: 'CLUSTERING',
        }),
      );
      assert.equal(q.code, ResponseCode.SUCCESS);
      const got = parseQueryAssignmentResponse(q.body)!;
      assert.ok(got.length === 2 && got.every((a) => a.mode === 'POP' && a.messageQueue.queueId === -1));
    } finally {
      rpc.close();
    }
    const c = ['-c', 'DefaultCluster'];
    const bad: Array<[string[], RegExp]> = [
      [[...c, '-t', topic, '-g', group, '-m', 'PUSH'], /--mode/],
      [[...c, '-t', topic, '-m', 'POP'], /--group/],
      [['-t', topic, '-g', group, '-m', 'POP'], /--broker/],
      [[...c, '-t', topic, '-g', group, '-m', 'POP', '-q', 'x'], /--share-queue-num/],
    ];
    for (const [args, flag] of bad)
      assertOneLineError(await runCli(['admin', 'setConsumeMode', ...n, ...args]), 2, flag);
  } finally {
    await h.close();
  }
});
