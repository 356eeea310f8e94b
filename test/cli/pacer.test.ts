import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PacedSender } from '../../src/cli/demo/pacer.js';

test('the paced sender issues rate × duration sends and waits for them', async () => {
  let settled = 0;
  const pacer = new PacedSender({ ratePerSec: 400, maxInFlight: 50, durationMs: 250 }, async () => {
    await new Promise((r) => setTimeout(r, 5));
    settled += 1;
  });
  await pacer.run();
  assert.equal(pacer.issued, 100);
  assert.equal(settled, 100);
  assert.equal(pacer.skipped, 0);
  assert.equal(pacer.pending, 0);
});

test('when every slot hangs the sender stays within maxInFlight and skips what it cannot send', async () => {
  const releases: Array<() => void> = [];
  let peak = 0;
  let current = 0;
  const pacer = new PacedSender({ ratePerSec: 1000, maxInFlight: 8, durationMs: 200, maxBacklog: 10 }, () => {
    current += 1;
    peak = Math.max(peak, current);
    return new Promise<void>((resolve) =>
      releases.push(() => {
        current -= 1;
        resolve();
      }),
    );
  });
  const done = pacer.run();
  await new Promise((r) => setTimeout(r, 260));
  assert.equal(peak, 8);
  assert.equal(pacer.issued, 8);
  assert.ok(pacer.skipped >= 150, `skipped ${pacer.skipped}`);
  for (const release of releases.splice(0)) release();
  await done;
  assert.equal(pacer.pending, 0);
});

test('stop() ends the run early', async () => {
  const pacer = new PacedSender({ ratePerSec: 100, maxInFlight: 4, durationMs: 60_000 }, async () => {});
  const done = pacer.run();
  setTimeout(() => pacer.stop(), 50);
  await done;
  assert.ok(pacer.issued <= 10);
});
