/** Client-layer errors; all extend RocketMQError (src/errors.ts). */
import { RocketMQError } from '../errors.js';

/** The topic has no route: not on the NameServer and no broker offers auto-creation. */
export class TopicRouteNotFoundError extends RocketMQError {
  readonly topic: string;
  constructor(topic: string, message: string, options: { cause?: unknown } = {}) {
    super('ERR_NO_ROUTE', `no route for topic ${topic}: ${message}`, { retriable: true, ...options });
    this.topic = topic;
  }
}

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
  ) {
    super(
      'ERR_NOT_A_NAMESRV',
      `${address} looks like a broker, not a NameServer: it does not support NameServer request ${requestCode}`,
    );
  }
}
