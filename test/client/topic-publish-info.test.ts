import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { SendWhichQueue, TopicPublishInfo } from '../../src/client/topic-publish-info.js';
import { capDefaultTopicRoute, publishQueues } from '../../src/client/route.js';
import { routeOf } from '../producer/helpers.js';

describe('TopicPublishInfo', () => {
  it('lists writable queues of master brokers sorted by broker name', () => {
    const route = routeOf({ 'broker-b': 2, 'broker-a': 3 });
    route.queueDatas.push({
      brokerName: 'broker-c',
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 4,
      topicSysFlag: 0,
    });
    route.brokerDatas.push({ cluster: 'C', brokerName: 'broker-c', brokerAddrs: { '0': 'x:1' } });
    route.queueDatas.push({
      brokerName: 'broker-slave-only',
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 6,
      topicSysFlag: 0,
    });
    route.brokerDatas.push({ cluster: 'C', brokerName: 'broker-slave-only', brokerAddrs: { '1': 'x:2' } });
    const qs = publishQueues('T', route).map((q) => `${q.brokerName}/${q.queueId}`);
    assert.deepEqual(qs, ['broker-a/0', 'broker-a/1', 'broker-a/2', 'broker-b/0', 'broker-b/1']);
  });

  it('uses orderTopicConf when present', () => {
    const route = { ...routeOf({ a: 1 }), orderTopicConf: 'x:2;y:1' };
    assert.deepEqual(
      publishQueues('T', route).map((q) => `${q.brokerName}/${q.queueId}`),
      ['x/0', 'x/1', 'y/0'],
    );
  });

  it('caps the TBW102 route at defaultTopicQueueNums', () => {
    const capped = capDefaultTopicRoute(routeOf({ a: 8, b: 2 }), 4);
    assert.deepEqual(
      capped.queueDatas.map((q) => [q.brokerName, q.readQueueNums, q.writeQueueNums]),
      [
        ['a', 4, 4],
        ['b', 2, 2],
      ],
    );
  });

  it('round robin visits every queue in turn from a random start', () => {
    const tp = new TopicPublishInfo('T', routeOf({ a: 2, b: 2 }), false, new SendWhichQueue(Math.random, 41));
    const seen = [tp.selectOne(), tp.selectOne(), tp.selectOne(), tp.selectOne()].map(
      (q) => `${q.brokerName}/${q.queueId}`,
    );
    assert.deepEqual(seen, ['b/0', 'b/1', 'a/0', 'a/1']);
    const starts = new Set<number>();
    for (let i = 0; i < 20; i++) starts.add(new SendWhichQueue().incrementAndGet());
    assert.ok(starts.size > 1, 'random start');
  });

  it('the counter wraps like a Java int and stays non-negative', () => {
    const c = new SendWhichQueue(Math.random, 0x7ffffffe);
    assert.equal(c.incrementAndGet(), 0x7fffffff);
    const v = c.incrementAndGet();
    assert.ok(v >= 0 && v < 2 ** 31);
  });

  it('selectAvoiding never returns the last broker when another exists', () => {
    const tp = new TopicPublishInfo('T', routeOf({ a: 4, b: 1 }));
    for (let i = 0; i < 50; i++) assert.equal(tp.selectAvoiding('a').brokerName, 'b');
    const single = new TopicPublishInfo('T', routeOf({ a: 2 }));
    assert.equal(single.selectAvoiding('a').brokerName, 'a');
  });

  it('writeQueueNumsOf is -1 for unknown brokers', () => {
    const tp = new TopicPublishInfo('T', routeOf({ a: 3 }));
    assert.equal(tp.writeQueueNumsOf('a'), 3);
    assert.equal(tp.writeQueueNumsOf('zz'), -1);
    assert.equal(tp.writeQueueNumsOf(undefined), -1);
  });
});
