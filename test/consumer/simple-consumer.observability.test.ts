/**
 * What a POP group shows (docs/consumers.md §3.6): backlog and in-flight messages through
 * `SimpleConsumer#lag()`, `Admin.consumerProgress`, the CLI's consumerProgress and the
 * dashboard's group page, on the embedded cluster.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { Admin } from '../../src/admin/admin.js';
import { Dashboard } from '../../src/dashboard/server.js';
import { killAll, runCli } from '../cli/run-cli.js';
import type { PoppedMessage } from '../../src/consumer/simple/pop-response.js';
import { popScenario } from './simple-consumer-helpers.js';

test.after(killAll);

test('a POP group with 10 sent, 6 received and 2 acked: backlog 4 and 4 in flight in lag(), consumerProgress, the CLI and the dashboard', async () => {
  await popScenario({}, 2, async ({ h, topic, group, consumer }) => {
    await h.send(topic, 10);
    const c = await consumer();
    const got: PoppedMessage[] = [];
    while (got.length < 6) got.push(...(await c.receive(6 - got.length, 60_000)));
    for (const m of got.slice(0, 2)) await c.ack(m);
    const backlog = 4;
    const inflight = 4;

    const lag = await c.lag();
    const main = lag.filter((q) => q.topic === topic);
    assert.equal(main.length, 2, 'both queues of the topic');
    assert.equal(
      main.reduce((s, q) => s + q.backlog, 0),
      backlog,
    );
    assert.equal(
      main.reduce((s, q) => s + q.inFlight, 0),
      inflight,
    );
    for (const q of lag) assert.equal(q.lag, q.backlog + q.inFlight);

    const admin = new Admin({ namesrvAddr: h.cluster.namesrvAddr });
    const dashboard = new Dashboard({ admin, port: 0, refreshMs: 100 });
    try {
      const p = await admin.consumerProgress(group, topic);
      assert.equal(p.totalLag, backlog);
      assert.equal(p.totalInflight, inflight);
      assert.equal(
        p.queues.reduce((s, q) => s + q.inflight, 0),
        inflight,
      );

      // The consumer is an online member (heartbeat CONSUME_POP) answering running info.
      const members = await admin.consumerConnections(group);
      assert.equal(members.consumeType, 'CONSUME_POP');
      assert.deepEqual(
        members.connections.map((m) => m.clientId),
        [c.clientId],
      );
      assert.deepEqual(Object.keys(members.subscriptions), [topic]);
      const info = await admin.consumerRunningInfo(group, c.clientId);
      assert.equal(info.properties.PROP_CONSUME_TYPE, 'CONSUME_POP');
      assert.equal(info.properties.popInflight, String(inflight));
      assert.equal(
        (info.mqPopTable ?? []).reduce((s, [, q]) => s + q.waitAckCount, 0),
        inflight,
        'mqPopTable: the received, un-acked messages per queue',
      );
      for (const [mq, q] of info.mqPopTable ?? []) {
        assert.equal(mq.topic, topic);
        assert.ok(q.lastPopTimestamp > 0);
      }

      const cli = await runCli(['admin', 'consumerProgress', '-n', h.cluster.namesrvAddr, '-g', group]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, /#Inflight/);
      assert.match(cli.stdout, new RegExp(`^Consume Inflight Total: ${inflight}$`, 'm'));

      const base = (await dashboard.start()).replace(/\/$/, '');
      const res = await fetch(`${base}/group?name=${encodeURIComponent(group)}`);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, new RegExp(`id="total-inflight">${inflight}<`));
      assert.match(html, new RegExp(`id="total-lag">${backlog}<`));
      assert.match(html, /<th[^>]*>In flight<\/th>/);
    } finally {
      await dashboard.close();
      await admin.close();
    }
  });
});
