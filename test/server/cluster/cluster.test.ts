import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { RequestCode, ResponseCode } from '../../../src/protocol/codes.js';
import { EmbeddedCluster } from '../../../src/server/cluster.js';
import { Rpc, sendV2Header, sleep, uniqueName } from '../broker/rpc-helpers.js';

const MAIN = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));

async function routeBrokers(ns: Rpc, topic: string): Promise<string[]> {
  const r = await ns.request(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic });
  if (r.code !== ResponseCode.SUCCESS) return [];
  return (
    JSON.parse(Buffer.from(r.body ?? []).toString()) as { queueDatas: Array<{ brokerName: string }> }
  ).queueDatas.map((q) => q.brokerName);
}

describe('EmbeddedCluster', () => {
  it('a broker killed abruptly leaves the routes at once and comes back on the same port with its data', async () => {
    const cluster = await EmbeddedCluster.start({ brokers: ['broker-x', 'broker-y'] });
    const ns = await Rpc.connect(cluster.namesrvAddr);
    try {
      const topic = uniqueName('Restart');
      await cluster.createTopic(topic, 2);
      assert.deepEqual(await routeBrokers(ns, topic), ['broker-x', 'broker-y']);
      const addr = cluster.brokers[0]!.addr;
      const rpc = await Rpc.connect(addr);
      assert.equal(
        (
          await rpc.request(
            RequestCode.SEND_MESSAGE_V2,
            sendV2Header({ topic, body: 'kept' }),
            Buffer.from('kept'),
          )
        ).code,
        ResponseCode.SUCCESS,
      );
      rpc.close();
      await cluster.stopBroker('broker-x', { graceful: false });
      let brokers = await routeBrokers(ns, topic);
      for (let i = 0; i < 20 && brokers.length !== 1; i++) {
        await sleep(25);
        brokers = await routeBrokers(ns, topic);
      }
      assert.deepEqual(brokers, ['broker-y'], 'the closed registration connection removed broker-x');
      await cluster.startBroker('broker-x');
      assert.equal(cluster.broker('broker-x').address, addr);
      assert.deepEqual(await routeBrokers(ns, topic), ['broker-x', 'broker-y']);
      assert.equal(cluster.broker('broker-x').store.getMaxOffset(topic, 0), 1);
    } finally {
      ns.close();
      await cluster.stop();
    }
  });

  it('rocketmq-ts cluster --json prints the addresses and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [MAIN, 'cluster', '--brokers', '2', '--namesrv-port', '0', '--json'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] ?? '');
      });
      child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
    });
    const info = JSON.parse(line) as { namesrv: string; brokers: Array<{ name: string; addr: string }> };
    assert.match(info.namesrv, /^127\.0\.0\.1:\d+$/);
    assert.deepEqual(
      info.brokers.map((b) => b.name),
      ['broker-a', 'broker-b'],
    );
    const ns = await Rpc.connect(info.namesrv);
    const clusterInfo = await ns.request(RequestCode.GET_BROKER_CLUSTER_INFO);
    ns.close();
    assert.deepEqual(
      (
        JSON.parse(Buffer.from(clusterInfo.body ?? []).toString()) as {
          clusterAddrTable: Record<string, string[]>;
        }
      ).clusterAddrTable,
      {
        DefaultCluster: ['broker-a', 'broker-b'],
      },
    );
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exit, 0);
  });
});
