/**
 * Requests a broker sends to the client (protocol.md §2): CHECK_TRANSACTION_STATE,
 * NOTIFY_CONSUMER_IDS_CHANGED, GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY,
 * RESET_CONSUMER_CLIENT_OFFSET, GET_CONSUMER_STATUS_FROM_CLIENT, PUSH_REPLY_MESSAGE_TO_CLIENT.
 * One table, code → handler; producers and consumers register their own handlers here. A code
 * nobody handles is answered REQUEST_CODE_NOT_SUPPORTED, except oneway requests, which never
 * get a reply.
 */
import { ResponseCode } from '../protocol/codes.js';
import { createResponse, isOneway, type RemotingCommand } from '../protocol/command.js';
import type { Connection } from '../remoting/connection.js';

/**
 * Handles one inbound request. Return the response (opaque and response flag are filled in),
 * `undefined` for no reply, or a promise of either. A thrown error is answered SYSTEM_ERROR.
 */
export type InboundHandler = (
  request: RemotingCommand,
  remoteAddress: string,
) => RemotingCommand | undefined | Promise<RemotingCommand | undefined>;

export class InboundRequests {
  private readonly handlers = new Map<number, InboundHandler>();

  /** Handles `code` with `handler`; replaces a previous handler of that code. */
  register(code: number, handler: InboundHandler): void {
    this.handlers.set(code, handler);
  }

  /** Removes the handler of `code` (only `handler`, when given, so a newer one stays). */
  unregister(code: number, handler?: InboundHandler): void {
    if (handler === undefined || this.handlers.get(code) === handler) this.handlers.delete(code);
  }

  /** The connection's request handler (remoting `RequestHandler`). */
  readonly dispatch = (
    request: RemotingCommand,
    connection: Connection,
  ): RemotingCommand | undefined | Promise<RemotingCommand | undefined> => {
    const handler = this.handlers.get(request.code);
    if (handler !== undefined) return handler(request, connection.remoteAddress);
    if (isOneway(request)) return undefined;
    return createResponse(
      request,
      ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      ` request type ${request.code} not supported`,
    );
  };
}
