/**
 * The client side of rocketmq-ts' fault-control request (9901): sets or clears the fault of a
 * remote broker started with `faultInjection` (`--fault-injection`). The `fault` command and the
 * demo's remote fault controller both go through here, so a broker without fault injection is
 * reported the same way everywhere.
 */
import { BrokerResponseError, RocketMQError } from '../../errors.js';
import { createRequest } from '../../protocol/command.js';
import { ResponseCode, responseCodeName } from '../../protocol/codes.js';
import type { ConnectionPool } from '../../remoting/pool.js';
import { FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields, type FaultSpec } from './faults.js';

/** The broker answered REQUEST_CODE_NOT_SUPPORTED to 9901: no fault injection there (or not rocketmq-ts). */
export class FaultInjectionDisabledError extends RocketMQError {
  constructor(readonly address: string) {
    super(
      'ERR_FAULT_INJECTION_DISABLED',
      `the broker at ${address} was started without fault injection (start it with --fault-injection; Apache brokers have none)`,
    );
  }
}

/**
 * Replaces the fault of the broker at `address` with `spec` (undefined clears it) and returns
 * the fault now in force, as the broker reports it (`{}` for none).
 */
export async function setRemoteFault(
  pool: ConnectionPool,
  address: string,
  spec: FaultSpec | undefined,
  timeoutMs = 5000,
): Promise<unknown> {
  const response = await pool.request(
    address,
    createRequest(FAULT_INJECTION_REQUEST_CODE, faultSpecToExtFields(spec)),
    timeoutMs,
  );
  if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
    throw new FaultInjectionDisabledError(address);
  if (response.code !== ResponseCode.SUCCESS)
    throw new BrokerResponseError(response.code, responseCodeName(response.code), response.remark, address);
  return response.body && response.body.length > 0 ? JSON.parse(Buffer.from(response.body).toString()) : {};
}
