import { InvalidArgumentError } from '../../errors.js';
import { ConnectionPool } from '../../remoting/pool.js';
import { setRemoteFault } from '../../server/broker/fault-control.js';
import { faultSpecFromExtFields, type FaultSpec } from '../../server/broker/faults.js';
import type { CliCommand } from '../command.js';
import { parseFlags, requiredFlag } from '../flags.js';

const FLAGS = {
  broker: { type: 'string' },
  latency: { type: 'string' },
  'error-code': { type: 'string' },
  'error-rate': { type: 'string' },
  hang: { type: 'boolean' },
  drop: { type: 'boolean' },
  refuse: { type: 'boolean' },
  codes: { type: 'string' },
  duration: { type: 'string' },
  'disk-full': { type: 'boolean' },
  clear: { type: 'boolean' },
} as const;

/** FaultSpec field (as sent in ext fields) → the flag that sets it. */
const FLAG_OF_FIELD = {
  latencyMs: 'latency',
  errorCode: 'error-code',
  errorRate: 'error-rate',
  hang: 'hang',
  dropConnections: 'drop',
  refuseConnections: 'refuse',
  requestCodes: 'codes',
  durationMs: 'duration',
  diskFull: 'disk-full',
} as const satisfies Record<string, keyof typeof FLAGS>;

/** The broker's own validation, with errors naming the flag instead of the spec field. */
function specOf(ext: Record<string, string>): FaultSpec | undefined {
  try {
    return faultSpecFromExtFields(ext);
  } catch (err) {
    if (!(err instanceof InvalidArgumentError) || !Object.hasOwn(FLAG_OF_FIELD, err.field)) throw err;
    const flag = FLAG_OF_FIELD[err.field as keyof typeof FLAG_OF_FIELD];
    throw new InvalidArgumentError(`--${flag}`, err.message.replace(`${err.field}: `, ''), { cause: err });
  }
}

export const faultCommand: CliCommand = {
  path: ['fault'],
  summary: 'Inject faults into a broker started with --fault-injection',
  help: `Usage: rocketmq-ts fault --broker HOST:PORT [--latency MS|MIN-MAX] [--error-code N [--error-rate F]]
                        [--hang] [--drop] [--refuse] [--codes 10,310,320] [--duration MS] [--disk-full]
                        [--clear]

Replaces the broker's active fault (request code 9901) and prints the fault now in force.
By default faults apply to send requests (codes 10, 310, 320).

Options:
  --broker A        broker address (required)
  --latency L       add L ms (or a random MIN-MAX ms) before answering
  --error-code N    answer response code N, e.g. 2 SYSTEM_BUSY, 10 FLUSH_DISK_TIMEOUT (stored, then answered 10)
  --error-rate F    fraction 0..1 of matching requests that get --error-code (default 1)
  --hang            never answer matching requests
  --drop            close the connection of each matching request
  --refuse          close every connection, new ones at once (combine with --duration: a refusing
                    broker cannot be reached to clear it)
  --codes LIST      comma-separated request codes the fault applies to
  --duration MS     clear the fault by itself after MS ms
  --disk-full       the broker's disk is full: every commit-log append fails with ENOSPC after
                    a partial write (sends answered 14 SERVICE_NOT_AVAILABLE)
  --clear           remove every fault`,
  flags: FLAGS,
  async run(argv) {
    const values = parseFlags(argv, FLAGS);
    const broker = requiredFlag('--broker', values.broker);
    // a rate alone would be accepted by the broker and do nothing: say so instead
    if (values['error-rate'] !== undefined && values['error-code'] === undefined)
      throw new InvalidArgumentError(
        '--error-rate',
        'needs --error-code N (the response code to answer with)',
      );
    let spec: FaultSpec | undefined;
    if (!values.clear) {
      const ext: Record<string, string> = {};
      for (const [field, flag] of Object.entries(FLAG_OF_FIELD)) {
        const value = values[flag];
        if (typeof value === 'string') ext[field] = value;
        else if (value === true) ext[field] = 'true';
      }
      spec = specOf(ext); // validates before anything is sent
    }
    const pool = new ConnectionPool();
    try {
      console.log(JSON.stringify(await setRemoteFault(pool, broker, spec)));
    } finally {
      await pool.close();
    }
    return 0;
  },
};
