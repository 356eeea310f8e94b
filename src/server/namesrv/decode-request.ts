/**
 * How the embedded servers read a request: every header through its declaration in
 * `protocol/headers/`, every body through the protocol's parser. A missing or malformed field is
 * a ProtocolError; the remoting layer answers any thrown error with SYSTEM_ERROR and the message
 * as remark (in JSON serialization, as Java does), so a bad request never crashes a server.
 */
import { ProtocolError } from '../../errors.js';
import type { RemotingCommand } from '../../protocol/command.js';
import {
  decodeRequestHeader,
  type HeaderCodec,
  type HeaderOf,
  type HeaderSpec,
} from '../../protocol/headers/fields.js';

/** The request's custom header, decoded as a Java server does (empty values count as absent). */
export function requestHeader<S extends HeaderSpec>(
  codec: HeaderCodec<S>,
  request: RemotingCommand,
): HeaderOf<S> {
  return decodeRequestHeader(codec, request.extFields);
}

/** The request body; ProtocolError when there is none. */
export function requiredBody(request: RemotingCommand, what: string): Uint8Array {
  if (!request.body || request.body.length === 0) throw new ProtocolError(`${what}: body is empty`);
  return request.body;
}
