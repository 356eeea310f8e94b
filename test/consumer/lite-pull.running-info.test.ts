import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runningStatus } from './helpers.js';
import { liteScenario, pollUntil } from './lite-pull-helpers.js';

test('a lite pull consumer’s GET_CONSUMER_RUNNING_INFO reports the pulls it made (pullRT, pullTPS), not zeros', async () => {
  await liteScenario({ brokers: 1 }, 2, async ({ h, topic, group, consumer }) => {
    const c = consumer({ consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' });
    c.subscribe(topic, '*');
    await c.start();
    await h.send(topic, 20);
    await pollUntil(c, 20);
    const status = await runningStatus(c.clientId, group, topic);
    assert.ok(status.pullTPS! > 0, `pullTPS ${status.pullTPS}`);
    // Long polls: at least one pull was held by the broker, so the mean round trip is above 0 ms.
    assert.ok(status.pullRT! > 0, `pullRT ${status.pullRT}`);
    assert.ok(status.consumeOKTPS! > 0, JSON.stringify(status));
  });
});
