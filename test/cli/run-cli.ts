/** Runs the built CLI (build/src/cli/main.js) in a child process for the CLI tests. */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { CHILD_SAFETY_LIMIT_MS, killedBySafetyLimit } from '../helpers/child-limit.js';

export const MAIN = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();

/** Kills every child still running (call from `test.after`). */
export function killAll(): void {
  for (const child of children) child.kill('SIGKILL');
}

/**
 * Spawns the CLI with `args`; kills it only if it hangs past the safety limit (the test then
 * fails on the exit code, and stderr says so). `CI=1` keeps the demo's output plain.
 */
export function startCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = CHILD_SAFETY_LIMIT_MS,
): { child: ChildProcess; done: Promise<Finished> } {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { ...process.env, NODE_DEBUG: '', ...env, CI: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let killedByUs = false;
  const timer = setTimeout(() => {
    killedByUs = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const done = new Promise<Finished>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      resolve({ code, stdout, stderr: stderr + killedBySafetyLimit(signal, killedByUs) });
    });
  });
  return { child, done };
}

/** Runs the CLI to its end. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Finished> {
  return startCli(args, env).done;
}

/**
 * Runs the CLI once per entry of `runs`, a few children at a time, and checks each result: dozens
 * of Node processes started at once would only slow each other down on a loaded 2-core machine.
 */
export async function runEach(
  runs: readonly (readonly string[])[],
  check: (args: readonly string[], r: Finished) => void,
  parallel = 4,
): Promise<void> {
  const queue = [...runs];
  const worker = async (): Promise<void> => {
    for (let args = queue.shift(); args !== undefined; args = queue.shift()) check(args, await runCli(args));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}

/** A stack frame line as node prints them. */
export const STACK_FRAME = /^\s+at /m;

/**
 * The CLI failed the way a new user should see it: exit `code`, nothing on stdout, and on stderr
 * one `error` line matching `pattern` plus at most one hint line, no stack frames.
 */
export function assertOneLineError(r: Finished, code: number, pattern: RegExp): void {
  const lines = r.stderr.trimEnd().split('\n');
  const context = `stderr:\n${r.stderr}`;
  assert.equal(r.code, code, `exit code; ${context}`);
  assert.match(lines[0] ?? '', /^error( \[[A-Z_]+\])?: /, context);
  assert.match(lines[0] ?? '', pattern, context);
  assert.ok(lines.length <= 2, `at most an error and a hint line; ${context}`);
  assert.doesNotMatch(r.stderr, STACK_FRAME, context);
  assert.equal(r.stdout, '');
}

/** A port nothing listens on: bound once on loopback, then released. */
export async function closedPort(): Promise<number> {
  const server = await listening();
  const port = portOf(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server on 127.0.0.1, port 0, that accepts and ignores connections. */
export function listening(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

export function portOf(server: Server): number {
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}
