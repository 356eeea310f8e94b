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
