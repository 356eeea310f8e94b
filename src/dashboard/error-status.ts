/** The HTTP status a dashboard page answers with when it fails, by the error's type. */
import {
  BrokerNotFoundError,
  BrokerUnavailableError,
  ConsumerGroupNotFoundError,
  ConsumerGroupOnlineError,
  ConsumerNotOnlineError,
  MessageNotFoundError,
  ProducerGroupNotOnlineError,
  RequestNotSupportedError,
  TopicNotFoundError,
  AccessDeniedError,
  InvalidArgumentError,
  NameServerUnreachableError,
  RocketMQError,
} from '../errors.js';

/** HTTP status of a failure: the caller's mistake, a missing thing, a conflict, or the cluster's. */
export function statusOf(err: unknown): number {
  if (err instanceof InvalidArgumentError) return 400;
  if (err instanceof AccessDeniedError) return 403;
  if (
    err instanceof TopicNotFoundError ||
    err instanceof ConsumerGroupNotFoundError ||
    err instanceof MessageNotFoundError ||
    err instanceof BrokerNotFoundError
  )
    return 404;
  if (
    err instanceof ConsumerNotOnlineError ||
    err instanceof ConsumerGroupOnlineError ||
    err instanceof ProducerGroupNotOnlineError
  )
    return 409;
  if (err instanceof RequestNotSupportedError) return 501;
  if (err instanceof BrokerUnavailableError || err instanceof NameServerUnreachableError) return 503;
  if (err instanceof RocketMQError) return 502;
  return 500;
}
