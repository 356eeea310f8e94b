/**
 * The chaos run's process handling: a server process killed and started again on its port, a
 * frozen one resumed, a foreign process started again from its /proc image, peak memory read.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import {
  ChildProc,
  freePort,
  isAlive,
  peakRssBytes,
  processImage,
  respawn,
} from '../../../src/cli/chaos/processes.js';
import type { ServerProcessArgs } from '../../../src/cli/chaos/server-process.js';
import { canConnect } from '../../../interop-test/raw-remoting.js';

const SERVER_ENTRY = fileURLToPath(new URL('../../../src/cli/chaos/server-process.js', import.meta.url));

describe('chaos processes', () => {
  it('a NameServer process SIGKILLed comes back on the same address; SIGSTOP freezes it, SIGCONT resumes it', async () => {
    const args: ServerProcessArgs = { role: 'namesrv', port: await freePort() };
    const unexpected: string[] = [];
    const proc = new ChildProc('namesrv', SERVER_ENTRY, args, undefined, (p) => unexpected.push(p.name));
    try {
      const addr = await proc.start();
      assert.equal(addr, `127.0.0.1:${args.port}`);
      assert.ok((peakRssBytes(proc.pid!) ?? 0) > 10 * 1048576, 'peak RSS read from /proc');
      await proc.kill();
      assert.equal(proc.alive, false);
      assert.equal(await canConnect(addr), false);
      assert.equal(await proc.start(), addr);
      assert.equal(proc.incarnation, 1);
      proc.signal('SIGSTOP');
      await sleep(100);
      assert.match(readFileSync(`/proc/${proc.pid!}/stat`, 'utf8'), /^\d+ \(.*\) T /, 'stopped');
      proc.signal('SIGCONT');
      assert.ok(await canConnect(addr));
    } finally {
      await proc.stop();
    }
    assert.deepEqual(unexpected, [], 'intended kills and stops are not reported');
  });

  it('a process is started again from its /proc image: same command line, directory and environment', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chaos-proc-'));
    const script =
      'process.stdout.write(process.env.CHAOS_MARK + " " + process.cwd()); setInterval(() => {}, 1000)';
    const first = spawn(process.execPath, ['-e', script], {
      cwd: dir,
      env: { ...process.env, CHAOS_MARK: 'mark-1' },
      stdio: 'ignore',
    });
    let second: number | undefined;
    try {
      await sleep(200);
      const image = processImage(first.pid!);
      assert.deepEqual(image.argv, [process.execPath, '-e', script]);
      assert.equal(image.cwd, dir);
      assert.equal(image.env.CHAOS_MARK, 'mark-1');
      first.kill('SIGKILL');
      second = respawn(image, join(dir, 'out.log'));
      await sleep(300);
      assert.ok(isAlive(second));
      assert.equal(processImage(second).env.CHAOS_MARK, 'mark-1');
    } finally {
      first.kill('SIGKILL');
      if (second !== undefined && isAlive(second)) process.kill(second, 'SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
