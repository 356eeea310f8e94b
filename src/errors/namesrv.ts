/** NameServer failures a newcomer meets first: none reachable, or the address is not a NameServer. */
import { RocketMQError } from './base.js';

/**
 * No NameServer of the list could be reached (refused, closed, or silent until the deadline):
 * the cause names the transport failure. Distinct from a broker being down, so a newcomer whose
 * `namesrvAddr` is wrong is told which address to check.
 */
export class NameServerUnreachableError extends RocketMQError {
  constructor(
    readonly addresses: readonly string[],
    options: { cause?: unknown } = {},
  ) {
    const cause = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super('ERR_NAMESRV_UNREACHABLE', `cannot reach the NameServer at ${addresses.join(';')}${cause}`, {
      retriable: true,
      ...options,
    });
  }
}

/**
 * The address given as a NameServer answered a NameServer request with REQUEST_CODE_NOT_SUPPORTED:
 * it is most likely a broker (brokers listen on 10911, NameServers on 9876).
 */
export class NotANameServerError extends RocketMQError {
  constructor(
    readonly address: string,
    readonly requestCode: number,
    /** A subclass's own code and message (ProxyEndpointError). */
    own?: { code: string; message: string },
  ) {
    super(
      own?.code ?? 'ERR_NOT_A_NAMESRV',
      own?.message ??
        `${address} looks like a broker, not a NameServer: it does not support NameServer request ${requestCode}`,
    );
  }
}
