/**
 * Admin failures a caller acts on, as types. Other refusals of a broker stay
 * BrokerResponseError with the response code and remark; unknown topics and brokers are in
 * broker.ts, shared with the other clients.
 */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

/** The consumer group is unknown: no online member and no stored progress. */
export class ConsumerGroupNotFoundError extends RocketMQError {
  constructor(
    readonly group: string,
    detail = 'no online member and no consume progress',
    options: RocketMQErrorOptions = {},
  ) {
    super('ERR_GROUP_NOT_FOUND', `consumer group ${group}: ${detail}`, options);
  }
}

/** The operation needs an online member (or client) of the group, and there is none. */
export class ConsumerNotOnlineError extends RocketMQError {
  constructor(
    readonly group: string,
    readonly clientId: string | undefined,
    options: RocketMQErrorOptions = {},
  ) {
    super(
      'ERR_CONSUMER_NOT_ONLINE',
      `consumer group ${group}${clientId ? ` client ${clientId}` : ''} is not online`,
      options,
    );
  }
}

/** A reset without `force` on a group whose members are running (they would overwrite it). */
export class ConsumerGroupOnlineError extends RocketMQError {
  constructor(
    readonly group: string,
    readonly members: number,
  ) {
    super(
      'ERR_GROUP_ONLINE',
      `consumer group ${group} has ${members} live member(s); pass force to reset it while they run`,
    );
  }
}

/** The producer group has no connection on the broker asked. */
export class ProducerGroupNotOnlineError extends RocketMQError {
  constructor(
    readonly group: string,
    options: RocketMQErrorOptions = {},
  ) {
    super('ERR_PRODUCER_NOT_ONLINE', `producer group ${group} is not online`, options);
  }
}

/** No message has that id or key. */
export class MessageNotFoundError extends RocketMQError {
  constructor(
    readonly query: string,
    options: RocketMQErrorOptions = {},
  ) {
    super('ERR_MESSAGE_NOT_FOUND', `no message found for ${query}`, options);
  }
}
