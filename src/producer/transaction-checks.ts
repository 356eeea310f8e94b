/**
 * CHECK_TRANSACTION_STATE (39, broker → producer, oneway; docs/protocol.md §11): one
 * handler per client instance's inbound table, dispatching by the half message's PGROUP to the
 * transaction producer of that group (several may share an instance). Unknown groups are
 * ignored, as Java does; no response is ever sent.
 */
import type { RemotingCommand } from '../protocol/command.js';
import {
  CheckTransactionState,
  type CheckTransactionStateRequestHeader,
} from '../protocol/headers/transaction.js';
import { decodeProperties, PropertyKey } from '../protocol/message/properties.js';
import { decodeStoredMessage } from '../protocol/message/stored-message.js';
import type { ClientInstance } from '../client/client-instance.js';
import { receivedMessage } from './received-message.js';
import type { TransactionCheckMessage } from './transaction-producer.js';

export interface CheckRequest {
  readonly header: CheckTransactionStateRequestHeader;
  readonly message: TransactionCheckMessage;
  /** Topic of the half message as stored (namespace kept), for END_TRANSACTION. */
  readonly wireTopic: string;
  /** Address of the broker that asked: END_TRANSACTION goes back there. */
  readonly brokerAddress: string;
}

export type CheckAnswerer = (check: CheckRequest) => Promise<void>;

const byInstance = new WeakMap<
  ClientInstance,
  Map<string, { answer: CheckAnswerer; namespace: string | undefined }>
>();

/** Routes checks of `group` (wire name) on `client` to `answer`; returns the unregister function. */
export function registerCheckListener(
  client: ClientInstance,
  group: string,
  answer: CheckAnswerer,
  namespace?: string,
): () => void {
  let groups = byInstance.get(client);
  if (groups === undefined) {
    const table = new Map<string, { answer: CheckAnswerer; namespace: string | undefined }>();
    groups = table;
    byInstance.set(client, table);
    client.inbound.register(CheckTransactionState.code, (request, remoteAddress) =>
      dispatch(table, request, remoteAddress, client),
    );
  }
  const entry = { answer, namespace };
  groups.set(group, entry);
  return () => {
    if (groups.get(group) === entry) groups.delete(group);
  };
}

function dispatch(
  groups: ReadonlyMap<string, { answer: CheckAnswerer; namespace: string | undefined }>,
  request: RemotingCommand,
  remoteAddress: string,
  client: ClientInstance,
): undefined {
  try {
    const header = CheckTransactionState.decode(request.extFields);
    const stored = decodeStoredMessage(Buffer.from(request.body ?? new Uint8Array(0))).message;
    const props = decodeProperties(stored.properties);
    const group = props[PropertyKey.PGROUP];
    const target = group === undefined ? undefined : groups.get(group);
    if (target === undefined) {
      client.logger.debug('transaction check for a group not in this client, ignored', { group });
      return undefined;
    }
    const view = receivedMessage({
      topic: stored.topic,
      properties: stored.properties,
      sysFlag: stored.sysFlag,
      body: stored.body,
      bornTimestamp: stored.bornTimestamp,
      flag: stored.flag,
      namespace: target.namespace,
    });
    const transactionId = props[PropertyKey.UNIQ_KEY] ?? header.transactionId ?? header.msgId ?? '';
    const message: TransactionCheckMessage = { ...view, transactionId };
    // The answer may outlive its producer (shut down meanwhile): log, never an unhandled rejection.
    target
      .answer({ header, message, wireTopic: stored.topic, brokerAddress: remoteAddress })
      .catch((err: unknown) =>
        client.logger.warn('answering a transaction check failed', { error: (err as Error).message }),
      );
  } catch (err) {
    client.logger.warn('malformed CHECK_TRANSACTION_STATE ignored', { error: (err as Error).message });
  }
  return undefined;
}
