/**
 * The lifecycle's own error (client/lifecycle.ts): a `start()` that `shutdown()` cancelled.
 */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

/**
 * `shutdown()` was called while `start()` was still running: the start work stopped at its next
 * await, everything it had opened was closed, and the client is STOPPED. Not retriable: a stopped
 * client cannot start again (make a new one).
 */
export class StartCancelledError extends RocketMQError {
  /** The client that was starting, e.g. `producer`, `push consumer`. */
  readonly client: string;
  constructor(client: string, options: RocketMQErrorOptions = {}) {
    super('ERR_START_CANCELLED', `${client} start() cancelled by shutdown()`, {
      ...options,
      retriable: false,
    });
    this.client = client;
  }
}
