/**
 * Runs a command that hosts brokers (`broker`, `cluster`) in a worker thread whose V8 young
 * generation is sized for a broker (server/broker-heap.ts explains why and what it measured).
 *
 * Why a thread: Node takes heap sizes only when a process or thread starts. Restarting the process
 * with `--max-semi-space-size` would give it a new pid and make SIGKILL of the pid that was
 * started leave the broker running; a worker keeps one process, so signals, pid files and
 * supervisors see exactly what they saw before. The main thread only relays the first SIGINT or
 * SIGTERM (the command's `untilSignal` receives it and stops its servers cleanly); after that it
 * stops listening, so a second one kills the process at once, as it always did.
 */
import { Worker, isMainThread, parentPort, resourceLimits } from 'node:worker_threads';
import { consoleLogger } from '../observability/logger.js';
import { BROKER_THREAD_RESOURCE_LIMITS } from '../server/broker-heap.js';

/** What the main thread posts to the broker thread when the process gets SIGINT or SIGTERM. */
interface RelayedSignal {
  readonly relayedSignal: NodeJS.Signals;
}

function isRelayedSignal(message: unknown): message is RelayedSignal {
  return typeof message === 'object' && message !== null && 'relayedSignal' in message;
}

/** True in the thread runInBrokerThread started (where the command itself runs). */
export function inBrokerThread(): boolean {
  return !isMainThread && parentPort !== null;
}

/**
 * Starts `main.js` with `argv` in a broker-sized worker and resolves with its exit code. The worker
 * prints to this process's stdout and stderr and reports its own errors (main.ts does the same
 * in every thread).
 */
export function runInBrokerThread(argv: readonly string[]): Promise<number> {
  const worker = new Worker(new URL('./main.js', import.meta.url), {
    argv: [...argv],
    resourceLimits: { ...BROKER_THREAD_RESOURCE_LIMITS },
  });
  const relay = (signal: NodeJS.Signals): void => {
    stopRelaying();
    worker.postMessage({ relayedSignal: signal } satisfies RelayedSignal);
  };
  const stopRelaying = (): void => {
    process.off('SIGINT', relay);
    process.off('SIGTERM', relay);
  };
  process.on('SIGINT', relay);
  process.on('SIGTERM', relay);
  return new Promise((resolve, reject) => {
    worker.once('error', (err) => {
      stopRelaying();
      reject(err);
    });
    worker.once('exit', (code) => {
      stopRelaying();
      resolve(code);
    });
  });
}

/** Logs (with --verbose) where the command's brokers run and with what young generation. */
export function logBrokerThread(): void {
  consoleLogger('cli').info(
    `brokers run in a worker thread with a ${resourceLimits.maxYoungGenerationSizeMb ?? '?'} MiB V8 young generation`,
  );
}

/** In the broker thread: resolves with the first signal the main thread relays. */
export function untilRelayedSignal(): Promise<NodeJS.Signals> {
  const port = parentPort;
  if (port === null) throw new Error('untilRelayedSignal runs only in the broker thread');
  return new Promise((resolve) => {
    const on = (message: unknown): void => {
      if (!isRelayedSignal(message)) return;
      port.off('message', on);
      resolve(message.relayedSignal);
    };
    port.on('message', on);
  });
}
