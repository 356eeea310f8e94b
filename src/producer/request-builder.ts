/**
 * SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE requests (docs/protocol.md §3.1) from the protocol layer's
 * own declarations (protocol/headers/send.ts), so client and broker share one header table.
 * The wire keys are exactly what a Java 4.9.7 producer sends: `a b c d e f g h i j k m n`
 * (`j` reconsumeTimes 0, `k` unitMode false, no `l`: maxReconsumeTimes is unset). The body is
 * the prepared bytes, never copied.
 */
import type { CommandDefaults, RemotingCommand } from '../protocol/command.js';
import { SendBatchMessage, SendMessageV2 } from '../protocol/headers/send.js';
import type { MessageQueue } from '../client/route.js';
import type { PreparedMessage } from './message.js';

export interface RequestSettings {
  /** Producer group as sent (namespace applied). */
  producerGroup: string;
  createTopicKey: string;
  defaultTopicQueueNums: number;
  commandDefaults: Readonly<CommandDefaults>;
}

export function buildSendRequest(
  p: PreparedMessage,
  mq: MessageQueue,
  s: RequestSettings,
  bornTimestamp: number = Date.now(),
): RemotingCommand {
  const decl = p.batch ? SendBatchMessage : SendMessageV2;
  return {
    code: decl.code,
    language: s.commandDefaults.language,
    version: s.commandDefaults.version,
    opaque: 0,
    flag: 0,
    extFields: decl.encode({
      producerGroup: s.producerGroup,
      topic: p.topic,
      defaultTopic: s.createTopicKey,
      defaultTopicQueueNums: s.defaultTopicQueueNums,
      queueId: mq.queueId,
      sysFlag: p.sysFlag,
      bornTimestamp,
      flag: p.flag,
      properties: p.properties,
      reconsumeTimes: 0,
      batch: p.batch,
      bname: mq.brokerName,
    }),
    serializeType: s.commandDefaults.serializeType,
    body: p.body,
  };
}
