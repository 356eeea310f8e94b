/**
 * The chaos run's child processes: start one (a Node entry with one JSON argument) and wait for
 * its `ready` line, feed its other lines to a handler, signal it (SIGKILL, SIGSTOP, SIGCONT,
 * SIGTERM); read any process's peak resident memory from /proc; and start a real broker again
 * from what /proc says about the process that was killed (its command line, directory and
 * environment).
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import * as net from 'node:net';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

export class ChildProc {
  private child: ChildProcessByStdio<null, Readable, Readable> | undefined;
  private exitedP: Promise<void> = Promise.resolve();
  private stderrTail = '';
  /** Incremented on every start. */
  incarnation = -1;
  /** Set while a stop or kill is intended, so the exit is not reported as unexpected. */
  private leaving = false;

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly args: unknown,
    private readonly onLine: (line: string, proc: ChildProc) => void = () => {},
    private readonly onUnexpectedExit: (proc: ChildProc, detail: string) => void = () => {},
    /** Node flags before the entry, e.g. a broker's young generation (server/broker-heap.ts). */
    private readonly nodeFlags: readonly string[] = [],
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Starts the process; resolves with what follows `ready` on its ready line. */
  start(timeoutMs = 60_000): Promise<string> {
    this.incarnation++;
    this.leaving = false;
    const child = spawn(process.execPath, [...this.nodeFlags, this.entry, JSON.stringify(this.args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exitedP = new Promise((resolve) => child.once('exit', () => resolve()));
    child.stderr.on('data', (d: Buffer) => (this.stderrTail = (this.stderrTail + d.toString()).slice(-2000)));
    return new Promise<string>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        if (!ready) {
          child.kill('SIGKILL');
          reject(new Error(`${this.name} did not get ready within ${timeoutMs} ms: ${this.stderrTail}`));
        }
      }, timeoutMs);
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!ready && (line === 'ready' || line.startsWith('ready '))) {
          ready = true;
          clearTimeout(timer);
          resolve(line.slice(6));
          return;
        }
        this.onLine(line, this);
      });
      void this.exitedP.then(() => {
        clearTimeout(timer);
        if (!ready) reject(new Error(`${this.name} exited before it got ready: ${this.stderrTail}`));
        else if (!this.leaving)
          this.onUnexpectedExit(this, `exit ${child.exitCode ?? child.signalCode}: ${this.stderrTail}`);
      });
    });
  }

  signal(sig: NodeJS.Signals): void {
    if (sig === 'SIGKILL' || sig === 'SIGTERM') this.leaving = true;
    if (this.alive) this.child!.kill(sig);
  }

  /** SIGKILL, and wait for the exit. */
  async kill(): Promise<void> {
    this.signal('SIGCONT');
    this.signal('SIGKILL');
    await this.exitedP;
  }

  /** SIGTERM (after SIGCONT, should it be frozen); SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.alive) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exitedP;
    clearTimeout(timer);
  }

  exited(): Promise<void> {
    return this.exitedP;
  }
}

/**
 * Peak resident set size of process `pid` in bytes (VmHWM: the kernel's high-water mark, so a
 * spike between two samples still counts); undefined when the process is gone or not on Linux.
 */
export function peakRssBytes(pid: number): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps the highest peak memory seen per process name, over every incarnation. */
export class MemoryWatch {
  private readonly peaks = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pidsByName: () => Iterable<[string, number | undefined]>,
    intervalMs = 1000,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  sample(): void {
    for (const [name, pid] of this.pidsByName()) {
      if (pid === undefined) continue;
      const peak = peakRssBytes(pid);
      if (peak !== undefined) this.peaks.set(name, Math.max(peak, this.peaks.get(name) ?? 0));
    }
  }

  stop(): Array<{ name: string; peakBytes: number }> {
    clearInterval(this.timer);
    this.sample();
    return [...this.peaks].map(([name, peakBytes]) => ({ name, peakBytes }));
  }
}

/** How to start a process again: what /proc said about it. */
export interface ProcessImage {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
}

export function processImage(pid: number): ProcessImage {
  const split = (file: string): string[] =>
    readFileSync(`/proc/${pid}/${file}`, 'latin1')
      .split('\0')
      .filter((s) => s !== '');
  const env: Record<string, string> = {};
  for (const kv of split('environ')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return { argv: split('cmdline'), cwd: readlinkSync(`/proc/${pid}/cwd`), env };
}

/** Starts `image` again, detached, output to `logFile`; returns the new PID. */
export function respawn(image: ProcessImage, logFile: string): number {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(image.argv[0]!, image.argv.slice(1), {
      cwd: image.cwd,
      env: image.env,
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${image.argv[0]}`);
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
