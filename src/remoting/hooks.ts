/**
 * RPC hooks, Java's `RPCHook`: called on the client before a request is written and after its
 * response arrives; on the server before dispatch and before the response is written. ACL
 * signing (docs/protocol.md §9) adds its extFields in `beforeRequest`.
 */
import type { RemotingCommand } from '../protocol/command.js';

export interface RpcHook {
  beforeRequest?(address: string, cmd: RemotingCommand): void;
  afterResponse?(address: string, cmd: RemotingCommand, response: RemotingCommand): void;
}

export function runBeforeHooks(hooks: ReadonlyArray<RpcHook>, address: string, cmd: RemotingCommand): void {
  for (const hook of hooks) hook.beforeRequest?.(address, cmd);
}

export function runAfterHooks(
  hooks: ReadonlyArray<RpcHook>,
  address: string,
  cmd: RemotingCommand,
  response: RemotingCommand,
): void {
  for (const hook of hooks) hook.afterResponse?.(address, cmd, response);
}
