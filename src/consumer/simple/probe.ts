/**
 * The start-time check of a SimpleConsumer (simple-consumer.ts): does this broker serve POP?
 */
import type { ClientInstance } from '../../client/client-instance.js';
import { PopNotSupportedError } from '../../errors.js';
import { ResponseCode } from '../../protocol/codes.js';
import { createRequest } from '../../protocol/command.js';
import { ConsumeInitMode, POP_MAX_MSG_NUMS, PopMessage } from '../../protocol/headers/pop.js';
import type { ResolvedSimpleConsumerOptions } from './options.js';

/**
 * A POP asking for one message more than the broker allows
 * (POP_MAX_MSG_NUMS + 1): a 5.x broker refuses it with INVALID_PARAMETER before it reads a
 * queue (PopMessageProcessor checks the count first), so the probe can never take a message and
 * start its invisible time; a 4.x broker answers REQUEST_CODE_NOT_SUPPORTED. POP_MESSAGE rather
 * than NOTIFICATION, because a 5.x Proxy serves POP_MESSAGE but not NOTIFICATION (docs/protocol.md
 * §13.5): one request per broker name, whatever address it sits at. PopNotSupportedError when not.
 */
export async function probePop(
  instance: ClientInstance,
  address: string,
  t: { wireTopic: string; expression: string; brokerName: string },
  o: Readonly<ResolvedSimpleConsumerOptions>,
  wireGroup: string,
): Promise<void> {
  const request = createRequest(
    PopMessage.code,
    PopMessage.encode({
      consumerGroup: wireGroup,
      topic: t.wireTopic,
      queueId: -1,
      maxMsgNums: POP_MAX_MSG_NUMS + 1,
      invisibleTime: o.invisibleDuration,
      pollTime: 0,
      bornTime: Date.now(),
      initMode: ConsumeInitMode.MAX,
      expType: 'TAG',
      exp: t.expression,
      order: o.fifo === true,
      bname: t.brokerName,
    }),
    undefined,
    instance.commandDefaults,
  );
  const response = await instance.pool.request(address, request, o.mqClientApiTimeout);
  if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED)
    throw new PopNotSupportedError(t.brokerName, address);
  // A broker at one of our NameServer addresses is a 5.x Proxy (it routes every broker to itself).
  // Its remoting server takes POP_MESSAGE for a pull (SYSTEM_ERROR: the pull header's sysFlag is
  // missing) and never answers ACK_MESSAGE, so POP cannot work there: fail now, not on the first ack.
  if (response.code === ResponseCode.SYSTEM_ERROR && o.namesrvAddr.includes(address))
    throw new PopNotSupportedError(t.brokerName, address, { proxy: true, remark: response.remark });
}
