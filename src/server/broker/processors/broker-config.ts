/**
 * GET_BROKER_CONFIG (26) and UPDATE_BROKER_CONFIG (25): the broker's options as Java properties
 * text. An update changes the running broker's options (those read per request take effect at
 * once: permissions, sizes, long polling, filters…); the options a broker reads only at start are
 * refused rather than silently recorded, and Java's black-listed keys get NO_PERMISSION.
 * The answer also carries `timerWheelEnable`/`timerMaxDelaySec` (as a 5.x broker does) and
 * EMBEDDED_TIMER_KEY, how a producer tells this broker (versioned 4.9.7, with a timer wheel) from
 * a 4.9 one without timers (src/producer/timer.ts). Object-valued options (acl, tls) and certificates
 * (namesrvTlsCa) are not listed.
 */
import { InvalidArgumentError } from '../../../errors.js';
import { encodePropertiesText, parsePropertiesText } from '../../../protocol/body/admin.js';
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../../protocol/command.js';
import { EMBEDDED_TIMER_KEY } from '../../../protocol/headers/admin.js';
import { GetBrokerConfig, UpdateBrokerConfig } from '../../../protocol/headers/broker-admin.js';
import type { DataVersion } from '../../../protocol/headers/register.js';
import type { RequestHandler } from '../../../remoting/options.js';
import type { BrokerContext } from '../context.js';
import { validateBrokerOptions, type BrokerOptions } from '../options.js';

/** Java's `configBlackList` default plus the keys it always adds. */
const BLACK_LIST = new Set(['brokerConfigPath', 'rocketmqHome', 'configBlackList']);

/** Read once at start (identity, sockets, store layout, timers). */
const START_ONLY = new Set<string>([
  'brokerName',
  'brokerClusterName',
  'brokerId',
  'listenPort',
  'listenHost',
  'namesrvAddr',
  'storePathRootDir',
  'brokerIP1',
  'flushDiskType',
  'flushIntervalCommitLog',
  'mappedFileSizeCommitLog',
  'registerNameServerPeriod',
  'messageDelayLevel',
  'transactionCheckInterval',
  'flushConsumerOffsetInterval',
  'faultInjection',
  'timerWheelEnable',
  'acl',
  'tls',
  'namesrvTlsCa',
  'logger',
]);

/** Options not shown: certificates are not settings (and PEM's line breaks are not properties text). */
const NOT_LISTED = new Set<string>(['namesrvTlsCa']);

/**
 * What GET_BROKER_CONFIG shows a non-admin account when ACL is on: the settings clients read
 * (the producer's timer check), not the rest (paths, the ACL file, limits), which Java shows to
 * any account (docs/security.md §2.3).
 */
const CLIENT_VISIBLE = new Set<string>([EMBEDDED_TIMER_KEY, 'timerWheelEnable', 'timerMaxDelaySec']);

const versions = new WeakMap<BrokerContext, DataVersion>();

function versionOf(ctx: BrokerContext): DataVersion {
  let v = versions.get(ctx);
  if (!v) versions.set(ctx, (v = { counter: 0, timestamp: Date.now() }));
  return v;
}

export function brokerConfigProcessors(ctx: BrokerContext): Array<[number, RequestHandler]> {
  return [
    [GetBrokerConfig.code, (r) => getConfig(ctx, r)],
    [UpdateBrokerConfig.code, (r) => updateConfig(ctx, r)],
  ];
}

function getConfig(ctx: BrokerContext, request: RemotingCommand): RemotingCommand {
  const props: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.options))
    if (
      v !== undefined &&
      !NOT_LISTED.has(k) &&
      (typeof v !== 'object' || v === null) &&
      typeof v !== 'function'
    )
      props[k] = String(v);
  props[EMBEDDED_TIMER_KEY] = String(ctx.options.timerWheelEnable);
  // Port 0 means "pick one": report the port actually bound.
  props.listenPort = String(ctx.storeHost.port);
  if (!ctx.aclIsAdmin(request))
    for (const k of Object.keys(props)) if (!CLIENT_VISIBLE.has(k)) delete props[k];
  const v = versionOf(ctx);
  return createResponse(
    request,
    ResponseCode.SUCCESS,
    undefined,
    { version: JSON.stringify({ counter: v.counter, timestamp: v.timestamp }) },
    encodePropertiesText(props),
  );
}

async function updateConfig(ctx: BrokerContext, request: RemotingCommand): Promise<RemotingCommand> {
  if (!request.body || request.body.length === 0) return createResponse(request, ResponseCode.SUCCESS);
  const props = parsePropertiesText(request.body);
  const current = ctx.options as unknown as Record<string, unknown>;
  const updates: Record<string, unknown> = {};
  for (const [key, text] of Object.entries(props)) {
    if (BLACK_LIST.has(key))
      return createResponse(request, ResponseCode.NO_PERMISSION, 'Can not update config in black list.');
    if (START_ONLY.has(key))
      return createResponse(
        request,
        ResponseCode.SYSTEM_ERROR,
        `${key} is read when the broker starts; restart the broker to change it`,
      );
    const was = current[key];
    // Java's setters ignore keys the broker does not have.
    if (was === undefined) continue;
    if (typeof was === 'number') {
      const n = Number(text.trim());
      if (text.trim() === '' || !Number.isFinite(n))
        return createResponse(request, ResponseCode.SYSTEM_ERROR, `${key}: not a number: ${text}`);
      updates[key] = n;
    } else if (typeof was === 'boolean') updates[key] = text.trim().toLowerCase() === 'true';
    else updates[key] = text;
  }
  try {
    validateBrokerOptions({ ...(current as Partial<BrokerOptions>), ...(updates as Partial<BrokerOptions>) });
  } catch (err) {
    if (err instanceof InvalidArgumentError)
      return createResponse(request, ResponseCode.SYSTEM_ERROR, err.message);
    throw err;
  }
  Object.assign(current, updates);
  const v = versionOf(ctx);
  v.counter++;
  v.timestamp = Date.now();
  if ('brokerPermission' in updates) await ctx.registerBrokerAll();
  return createResponse(request, ResponseCode.SUCCESS);
}
