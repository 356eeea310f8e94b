import { BrokerResponseError, InvalidArgumentError } from '../../errors.js';
import { ResponseCode, responseCodeName } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { Connection } from '../../remoting/connection.js';
import {
  FAULT_INJECTION_REQUEST_CODE,
  faultSpecFromExtFields,
  faultSpecToExtFields,
  type FaultSpec,
} from '../../server/broker/faults.js';
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
  clear: { type: 'boolean' },
} as const;

export const faultCommand: CliCommand = {
  path: ['fault'],
  summary: 'Inject faults into a broker started with --fault-injection',
  help: `Usage: rocketmq-ts fault --broker HOST:PORT [--latency MS|MIN-MAX] [--error-code N [--error-rate F]]
                        [--hang] [--drop] [--refuse] [--codes 10,310,320] [--duration MS] [--clear]

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
      if (values.latency !== undefined) ext.latencyMs = values.latency;
      if (values['error-code'] !== undefined) ext.errorCode = values['error-code'];
      if (values['error-rate'] !== undefined) ext.errorRate = values['error-rate'];
      if (values.hang) ext.hang = 'true';
      if (values.drop) ext.dropConnections = 'true';
      if (values.refuse) ext.refuseConnections = 'true';
      if (values.codes !== undefined) ext.requestCodes = values.codes;
      if (values.duration !== undefined) ext.durationMs = values.duration;
      spec = faultSpecFromExtFields(ext); // validates before anything is sent
    }
    const conn = await Connection.connect(broker);
    try {
      const response = await conn.request(
        createRequest(FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields(spec)),
        5000,
      );
      if (response.code !== ResponseCode.SUCCESS) {
        throw new BrokerResponseError(
          response.code,
          responseCodeName(response.code),
          response.remark ?? 'is fault injection enabled on that broker?',
          broker,
        );
      }
      console.log(response.body ? Buffer.from(response.body).toString() : '{}');
    } finally {
      conn.close();
    }
    return 0;
  },
};
