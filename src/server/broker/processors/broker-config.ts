/**
 * GET_BROKER_CONFIG (26): the broker's settings as Java `Properties` text. Ours lists what a
 * client may want to know before it sends: identity, size limit, delay levels and the 5.x timer
 * settings (`timerWheelEnable`, `timerMaxDelaySec`), which is how a producer tells a broker that
 * honours timer messages from a 4.9 one (src/producer/timer-support.ts).
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { EMBEDDED_TIMER_KEY, GetBrokerConfig } from '../../../protocol/headers/admin.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';

export function brokerConfigProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [[GetBrokerConfig.code, (request) => brokerConfig(ctx, request)]];
}

function brokerConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const o = ctx.options;
  const settings: Record<string, string | number | boolean> = {
    brokerName: o.brokerName,
    brokerClusterName: o.brokerClusterName,
    brokerId: o.brokerId,
    brokerIP1: o.brokerIP1,
    maxMessageSize: o.maxMessageSize,
    messageDelayLevel: o.messageDelayLevel,
    timerWheelEnable: o.timerWheelEnable,
    timerMaxDelaySec: o.timerMaxDelaySec,
    // This broker answers with version 4.9.7 yet has a timer wheel: say so (src/producer/timer.ts).
    [EMBEDDED_TIMER_KEY]: o.timerWheelEnable,
  };
  const text = Object.entries(settings)
    .map(([k, v]) => `${k}=${String(v)}\n`)
    .join('');
  const response = createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    undefined,
    Buffer.from(text, 'utf8'),
  );
  response.extFields = { version: JSON.stringify(ctx.topics.version) };
  return response;
}
