/**
 * Giving a failed message back (docs/protocol.md §10.2, docs/consumers.md §1.6): CONSUMER_SEND_MSG_BACK to the master of
 * the broker it came from, so the broker stores it in `%RETRY%<group>` with delay level
 * 3 + reconsumeTimes, or in `%DLQ%<group>` after maxReconsumeTimes. If that fails, the message is
 * re-sent as a new message to `%RETRY%<group>` (Java's CLIENT_INNER_PRODUCER path): same body,
 * flag and properties, RETRY_TOPIC, ORIGIN_MESSAGE_ID, RECONSUME_TIME and MAX_RECONSUME_TIMES set,
 * so the broker's retry/DLQ rules still apply. Only when both fail does the caller keep the
 * message and consume it again locally.
 */
import { AUTO_CREATE_DEFAULTS } from '../../client/client-options.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { ConsumerSendMsgBack } from '../../protocol/headers/consumer.js';
import { CLIENT_INNER_PRODUCER_GROUP } from '../../protocol/headers/heartbeat.js';
import { SendMessageV2 } from '../../protocol/headers/send.js';
import { encodeProperties, PropertyKey } from '../../protocol/message/properties.js';
import { RETRY_GROUP_TOPIC_PREFIX } from '../../protocol/validation.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { Logger } from '../../observability/logger.js';
import type { ConsumerClient } from './client-port.js';
import type { ConsumerMessage } from './message-view.js';

/** CONSUMER_SEND_MSG_BACK timeout (Java: 5 s). */
const SEND_BACK_TIMEOUT_MS = 5000;

export interface SendBackSettings {
  /** Group on the wire (namespace applied). */
  group: string;
  namespace: string | undefined;
  /** Effective maximum (−1 already resolved). */
  maxReconsumeTimes: number;
  unitMode: boolean;
  timeoutMs: number;
}

export class SendBack {
  constructor(
    private readonly client: ConsumerClient,
    private readonly s: SendBackSettings,
    private readonly logger: Logger,
  ) {}

  /**
   * Hands `msg` back to the broker (delayLevel 0 = broker decides, −1 = DLQ at once); falls back
   * to a re-send. Resolves true when either stored it.
   */
  async sendBack(msg: ConsumerMessage, delayLevel = 0): Promise<boolean> {
    const address = this.client.masterAddress(msg.queue.brokerName);
    if (address !== undefined) {
      try {
        const response = await this.client.request(
          address,
          createRequest(
            ConsumerSendMsgBack.code,
            ConsumerSendMsgBack.encode({
              offset: msg.commitLogOffset,
              group: this.s.group,
              delayLevel,
              originMsgId: msg.msgId,
              originTopic: wrapNamespace(this.s.namespace, msg.topic),
              unitMode: this.s.unitMode,
              maxReconsumeTimes: this.s.maxReconsumeTimes,
              bname: msg.queue.brokerName,
            }),
            undefined,
            this.client.commandDefaults,
          ),
          Math.max(this.s.timeoutMs, SEND_BACK_TIMEOUT_MS),
        );
        if (response.code === ResponseCode.SUCCESS) return true;
        this.logger.warn('CONSUMER_SEND_MSG_BACK refused; re-sending the message instead', {
          msgId: msg.msgId,
          code: response.code,
          remark: response.remark,
        });
      } catch (err) {
        this.logger.warn('CONSUMER_SEND_MSG_BACK failed; re-sending the message instead', {
          msgId: msg.msgId,
          error: err,
        });
      }
    }
    return this.resend(msg, msg.reconsumeTimes + 1, 3 + msg.reconsumeTimes);
  }

  /**
   * Sends `msg` as a new message to `%RETRY%<group>` (Java `sendMessageBack` fallback and the
   * orderly DLQ path). The broker routes it to the DLQ when `reconsumeTimes` ≥ max.
   */
  async resend(msg: ConsumerMessage, reconsumeTimes: number, delayLevel: number): Promise<boolean> {
    const retryTopic = RETRY_GROUP_TOPIC_PREFIX + this.s.group;
    const props: Record<string, string> = { ...msg.properties, ...msg.systemProperties };
    delete props[PropertyKey.MIN_OFFSET];
    delete props[PropertyKey.MAX_OFFSET];
    delete props[PropertyKey.CONSUME_START_TIME];
    delete props[PropertyKey.TRAN_MSG];
    props[PropertyKey.RETRY_TOPIC] ??= wrapNamespace(this.s.namespace, msg.topic);
    props[PropertyKey.ORIGIN_MESSAGE_ID] ??= msg.msgId;
    if (delayLevel > 0) props[PropertyKey.DELAY] = String(Math.min(delayLevel, 18));
    else delete props[PropertyKey.DELAY];
    const header = SendMessageV2.encode({
      producerGroup: CLIENT_INNER_PRODUCER_GROUP,
      topic: retryTopic,
      defaultTopic: AUTO_CREATE_DEFAULTS.createTopicKey,
      defaultTopicQueueNums: AUTO_CREATE_DEFAULTS.defaultTopicQueueNums,
      queueId: 0,
      // The body goes out decompressed: clear the compression bits of the stored sysFlag.
      sysFlag: 0,
      bornTimestamp: Date.now(),
      flag: msg.flag,
      properties: encodeProperties(props),
      reconsumeTimes,
      unitMode: this.s.unitMode,
      maxReconsumeTimes: this.s.maxReconsumeTimes,
      batch: false,
      bname: msg.queue.brokerName,
    });
    // The retry topic has one queue on every broker the group heartbeats to; try the message's
    // own broker first, then the others.
    const brokers = [msg.queue.brokerName];
    for (const name of this.client.brokerNames()) if (!brokers.includes(name)) brokers.push(name);
    for (const brokerName of brokers) {
      const address = this.client.masterAddress(brokerName);
      if (address === undefined) continue;
      try {
        const response = await this.client.request(
          address,
          createRequest(
            SendMessageV2.code,
            { ...header, n: brokerName },
            msg.body,
            this.client.commandDefaults,
          ),
          SEND_BACK_TIMEOUT_MS,
        );
        if (response.code === ResponseCode.SUCCESS) return true;
        this.logger.warn('re-sending a failed message to the retry topic was refused', {
          msgId: msg.msgId,
          brokerName,
          code: response.code,
          remark: response.remark,
        });
      } catch (err) {
        this.logger.warn('re-sending a failed message to the retry topic failed', {
          msgId: msg.msgId,
          brokerName,
          error: err,
        });
      }
    }
    return false;
  }
}
