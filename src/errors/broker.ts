/**
 * What a broker or NameServer answered, or could not be asked: a failed response code, an ACL
 * refusal, an unknown topic or broker, an unreachable broker, a request its version lacks.
 * `client/response-error.ts` (`errorFromResponse`) decides which of these a failed response becomes.
 */
import { RocketMQError, type RocketMQErrorOptions } from './base.js';

/** The broker or NameServer answered with a non-success response code. */
export class BrokerResponseError extends RocketMQError {
  readonly responseCode: number;
  readonly remark: string | undefined;
  readonly address: string | undefined;
  constructor(
    responseCode: number,
    codeName: string,
    remark: string | undefined,
    address: string | undefined,
    options: RocketMQErrorOptions & { errorCode?: string } = {},
  ) {
    super(
      options.errorCode ?? 'ERR_BROKER_RESPONSE',
      `${codeName} (${responseCode})${address ? ` from ${address}` : ''}${remark ? `: ${remark}` : ''}`,
      options,
    );
    this.responseCode = responseCode;
    this.remark = remark;
    this.address = address;
  }
}

/** What the sender does to fit a topic of each type (MessageTypeMismatchError's message). */
const MESSAGE_TYPE_HINTS: ReadonlyMap<string, string> = new Map([
  ['FIFO', 'set messageGroup'],
  ['DELAY', 'set deliverAt, deliverAfterMs or delayTimeLevel'],
  ['TRANSACTION', 'send it with a TransactionProducer'],
  ['PRIORITY', 'set priority'],
  ['UNSPECIFIED', 'Admin.createTopic first'],
]);

/**
 * [5.x] The topic's `message.type` does not accept this message (a 5.x Proxy, or a broker with
 * `enableTopicMessageTypeCheck`): a FIFO topic needs `messageGroup`, a DELAY topic a delay or
 * timer, a TRANSACTION topic a transaction. Never retried: every broker of the topic says the same.
 */
export class MessageTypeMismatchError extends BrokerResponseError {
  /** The topic as the application wrote it. */
  readonly topic: string;
  /** The topic's type (`message.type`). */
  readonly expectedType: string;
  /** The type of the message as sent. */
  readonly actualType: string;
  constructor(
    topic: string,
    expectedType: string,
    actualType: string,
    response: { responseCode: number; remark: string | undefined; address: string | undefined },
    options: { cause?: unknown } = {},
  ) {
    super(response.responseCode, 'MESSAGE_ILLEGAL', response.remark, response.address, {
      ...options,
      retriable: false,
      errorCode: 'ERR_MESSAGE_TYPE_MISMATCH',
    });
    const what =
      expectedType === 'UNSPECIFIED'
        ? `topic ${topic} has no message type the Proxy knows (it refuses topics it cannot find, e.g. not created yet: create it with a messageType) and refuses a ${actualType} message`
        : `topic ${topic} is of type ${expectedType} and refuses a ${actualType} message`;
    const hint = MESSAGE_TYPE_HINTS.get(expectedType) ?? `send it to a ${actualType} topic`;
    this.message = `${what} (${hint})${response.address ? ` from ${response.address}` : ''}`;
    this.topic = topic;
    this.expectedType = expectedType;
    this.actualType = actualType;
  }
}

/**
 * The server refused the request on ACL grounds (docs/security.md §2.5): a missing or
 * unknown AccessKey, a bad signature, or a missing permission. Never retriable: another broker of
 * the same cluster would refuse it too. A 4.9 broker says so with SYSTEM_ERROR and the
 * `AclException` text in the remark, a 5.x broker (and ours) with NO_PERMISSION.
 */
export class AccessDeniedError extends RocketMQError {
  /** The response code the server used (1 SYSTEM_ERROR from 4.9, 16 NO_PERMISSION from 5.x). */
  readonly responseCode: number;
  /** The server's reason, verbatim. */
  readonly remark: string;
  /** What was refused, e.g. `topic:TopicA`, `group:GroupA`, `code=17`; undefined when the reason is the identity. */
  readonly resource: string | undefined;
  /** The permission that was missing (`PUB`, `SUB`, `ADMIN`), when known. */
  readonly permission: string | undefined;
  readonly address: string | undefined;
  constructor(
    responseCode: number,
    remark: string,
    details: { resource?: string | undefined; permission?: string | undefined; address?: string | undefined },
    options: RocketMQErrorOptions = {},
  ) {
    const what =
      details.resource !== undefined ? ` (${details.permission ?? 'access'} on ${details.resource})` : '';
    super(
      'ERR_ACCESS_DENIED',
      `access denied${what}${details.address ? ` by ${details.address}` : ''}: ${remark}`,
      { ...options, retriable: false },
    );
    this.responseCode = responseCode;
    this.remark = remark;
    this.resource = details.resource;
    this.permission = details.permission;
    this.address = details.address;
  }
}

/** The failed response an error came from, when it came from one. */
export interface ResponseDetails {
  readonly responseCode: number;
  readonly remark: string | undefined;
  readonly address: string | undefined;
}

/**
 * The topic does not exist: the NameServer has no route for it (and, for a send, no broker
 * offers auto-creation), or a broker answered TOPIC_NOT_EXIST. One class for the admin client
 * and the route lookup of producers and consumers; a lookup that may succeed later (the topic is
 * being created) marks itself retriable.
 */
export class TopicNotFoundError extends RocketMQError {
  readonly topic: string;
  /** TOPIC_NOT_EXIST (17) when a broker or NameServer said so, else undefined (no route found). */
  readonly responseCode: number | undefined;
  readonly remark: string | undefined;
  readonly address: string | undefined;
  /** `detail` says why, e.g. "the NameServer knows neither the topic nor TBW102". */
  constructor(
    topic: string,
    detail?: string,
    options: RocketMQErrorOptions & { response?: ResponseDetails | undefined } = {},
  ) {
    const { response, ...rest } = options;
    super(
      'ERR_TOPIC_NOT_FOUND',
      detail === undefined ? `topic ${topic} does not exist` : `no route for topic ${topic}: ${detail}`,
      rest,
    );
    this.topic = topic;
    this.responseCode = response?.responseCode;
    this.remark = response?.remark;
    this.address = response?.address;
  }
}

/**
 * The broker (or cluster) named is unknown: the NameServer has none registered by that name,
 * or the route of a topic names a broker with no master address (retriable then: the route is
 * refreshed and another broker tried).
 */
export class BrokerNotFoundError extends RocketMQError {
  readonly broker: string;
  constructor(broker: string, detail?: string, options: RocketMQErrorOptions = {}) {
    super(
      'ERR_BROKER_NOT_FOUND',
      detail === undefined
        ? `no broker or cluster named ${broker} is registered`
        : `broker ${broker} ${detail}`,
      options,
    );
    this.broker = broker;
  }
}

/** The broker could not be reached (refused, closed, timed out). */
export class BrokerUnavailableError extends RocketMQError {
  constructor(
    readonly address: string,
    options: RocketMQErrorOptions = {},
  ) {
    super(
      'ERR_BROKER_UNAVAILABLE',
      `broker ${address} is unavailable${options.cause instanceof Error ? `: ${options.cause.message}` : ''}`,
      { retriable: true, ...options },
    );
  }
}

/** The broker answered REQUEST_CODE_NOT_SUPPORTED: its version does not implement this request. */
export class RequestNotSupportedError extends RocketMQError {
  constructor(
    readonly address: string,
    readonly requestCode: number,
    readonly requestName: string,
    /** A subclass's own code and explanation (AuthAdminNotSupportedError). */
    own?: { code: string; why: string },
  ) {
    super(
      own?.code ?? 'ERR_NOT_SUPPORTED',
      `${address} does not support ${requestName} (${requestCode})${own ? `: ${own.why}` : ''}`,
    );
  }
}

/**
 * An ACL 2.0 admin request (users, ACL entries: codes 3001–3010) answered REQUEST_CODE_NOT_SUPPORTED:
 * the broker has no ACL 2.0, i.e. it is older than RocketMQ 5.3 (4.9 has ACL 1.0 only) or it is
 * the embedded broker, whose ACL is 1.0 (`plain_acl.yml`). A RequestNotSupportedError, so code
 * handling that handles this too (docs/security.md §6).
 */
export class AuthAdminNotSupportedError extends RequestNotSupportedError {
  /** The server's reason, verbatim (the message already says what it means). */
  readonly remark: string;
  constructor(address: string, requestCode: number, requestName: string, remark: string) {
    super(address, requestCode, requestName, {
      code: 'ERR_AUTH_ADMIN_NOT_SUPPORTED',
      why:
        'ACL 2.0 admin (users and ACL entries) needs a RocketMQ 5.3+ broker with authenticationEnabled ' +
        'and authorizationEnabled; 4.9 brokers and the embedded broker have ACL 1.0 (plain_acl.yml) only',
    });
    this.remark = remark;
  }
}
