/** What the commands that run servers (namesrv, broker, cluster) share. */
import { InvalidArgumentError } from '../errors.js';
import { inBrokerThread, untilRelayedSignal } from './broker-thread.js';

/**
 * Resolves on the first SIGINT or SIGTERM (servers shut down cleanly then); in the broker thread,
 * on the one the main thread relays.
 */
export function untilSignal(): Promise<NodeJS.Signals> {
  if (inBrokerThread()) return untilRelayedSignal();
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals): void => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(sig);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

/**
 * Runs `start` (which binds the port given by `flag`); EADDRINUSE becomes an
 * InvalidArgumentError naming the flag and how to pick another port instead of a stack trace.
 */
export async function listenOn<T>(flag: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const inUse = addressInUse(err);
    if (!inUse) throw err;
    const where = inUse.port === undefined ? 'the port' : `port ${inUse.port}`;
    throw new InvalidArgumentError(
      flag,
      `${where}${inUse.address ? ` on ${inUse.address}` : ''} is already in use; pick another with ${flag} P (0 picks a free one)`,
      { cause: err },
    );
  }
}

/** The EADDRINUSE system error in `err` or its causes (a server may wrap the one listen() gave). */
function addressInUse(err: unknown): { port?: number; address?: string } | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const sys = e as NodeJS.ErrnoException & { port?: number; address?: string };
    if (sys.code === 'EADDRINUSE') return { port: sys.port, address: sys.address };
  }
  return undefined;
}
