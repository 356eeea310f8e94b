/**
 * SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE requests (docs/protocol.md §3.1): the V2 header with keys
 * `a`..`n` exactly as a Java 4.9.7 producer sends them (`a b c d e f g h i j k m n`; no `l`,
 * no `bname`). The body is the prepared bytes, never copied.
 */
import { RequestCode } from '../protocol/codes.js';
import type { CommandDefaults, RemotingCommand } from '../protocol/command.js';
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
  return {
    code: p.batch ? RequestCode.SEND_BATCH_MESSAGE : RequestCode.SEND_MESSAGE_V2,
    language: s.commandDefaults.language,
    version: s.commandDefaults.version,
    opaque: 0,
    flag: 0,
    extFields: {
      a: s.producerGroup,
      b: p.topic,
      c: s.createTopicKey,
      d: String(s.defaultTopicQueueNums),
      e: String(mq.queueId),
      f: String(p.sysFlag),
      g: String(bornTimestamp),
      h: String(p.flag),
      i: p.properties,
      j: '0',
      k: 'false',
      m: p.batch ? 'true' : 'false',
      n: mq.brokerName,
    },
    serializeType: s.commandDefaults.serializeType,
    body: p.body,
  };
}
