/**
 * How the broker reads a request header: as the NameServer does (namesrv/decode-request.ts),
 * then every topic and group it names through the topic/group validator, once, here at the
 * edge (docs/security.md §7). A name the store would refuse later (`%RETRY%x/../../y`) is
 * refused now, before a processor stores, schedules or creates anything for it; the remoting
 * layer answers the thrown InvalidArgumentError with SYSTEM_ERROR and its message, as Java
 * answers an illegal topic.
 */
import { InvalidArgumentError } from '../../errors.js';
import type { RemotingCommand } from '../../protocol/command.js';
import type { HeaderCodec, HeaderOf, HeaderSpec } from '../../protocol/headers/fields.js';
import { checkNameFields } from '../../protocol/validation.js';
import { requestHeader as decodeHeader } from '../namesrv/decode-request.js';

export { requiredBody } from '../namesrv/decode-request.js';

/** The request's custom header, decoded, with every topic and group name in it checked. */
export function requestHeader<S extends HeaderSpec>(
  codec: HeaderCodec<S>,
  request: RemotingCommand,
): HeaderOf<S> {
  const header = decodeHeader(codec, request);
  const bad = checkNameFields(header as Readonly<Record<string, unknown>>);
  if (bad !== undefined) throw new InvalidArgumentError(bad.field, bad.problem);
  return header;
}
