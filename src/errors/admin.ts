/**
 * Admin failures a caller acts on, as types. Other refusals of a broker stay
 * BrokerResponseError with the response code and remark; unknown topics and brokers are in
 * broker.ts, shared with the other clients.
 */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';
import { NotANameServerError } from './namesrv.js';

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

/**
 * The address given as a NameServer is a RocketMQ 5 Proxy's remoting endpoint: it answers routes
 * (naming itself as every broker) but serves no NameServer or broker admin request. Producers and
 * consumers work through it; Admin, the CLI's admin commands and the dashboard need a NameServer
 * (docs/proxy.md). A NotANameServerError, so code that handles that handles this too.
 */
export class ProxyEndpointError extends NotANameServerError {
  constructor(address: string, requestCode: number) {
    super(address, requestCode, {
      code: 'ERR_PROXY_ENDPOINT',
      message:
        `${address} is a RocketMQ 5 Proxy, not a NameServer: it does not serve admin request ${requestCode}. ` +
        'Point Admin, the CLI admin commands and the dashboard at a NameServer address ' +
        '(producers and consumers may keep using the Proxy)',
    });
  }
}
