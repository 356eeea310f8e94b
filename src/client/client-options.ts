/**
 * The options every client shares (Java `ClientConfig`: namesrvAddr, namespace, instanceName,
 * clientIP, unitName, language, mqClientApiTimeout, pollNameServerInterval,
 * heartbeatBrokerInterval; plus credentials, tls and logger, and the trace pair where a class
 * traces), resolved by one function so a value means the same thing, and fails the same way, on
 * Producer, TransactionProducer, PushConsumer, LitePullConsumer, SimpleConsumer and Admin. Each
 * class's options file declares only its own options and hands them here as `own`; the
 * ClientInstance config every class takes is built from the result by `clientInstanceConfig`.
 *
 * A class that cannot honour a shared option lists it in `unsupported` with the reason, which
 * the error then gives; an option renamed to its Java name is refused naming the new one.
 */
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import {
  checkBoolean,
  checkInt,
  checkLogger,
  checkObject,
  checkString,
  MAX_INT,
  rejectUnknownKeys,
} from '../options.js';
import { resolveCommandDefaults } from '../protocol/command.js';
import { DEFAULT_TOPIC, checkTopic } from '../protocol/validation.js';
import { buildClientId, localClientIp } from './client-id.js';
import type { ClientInstanceConfig } from './client-instance.js';
import {
  CLIENT_CONNECTION_OPTION_KEYS,
  resolveClientConnection,
  type ClientConnection,
  type ClientConnectionOptions,
} from './connection-options.js';

/** What every client class takes; each class's options interface extends it. */
export interface ClientOptions extends ClientConnectionOptions {
  /**
   * NameServer addresses, `"host:port;host:port"` or an array. Several give failover.
   * @default process.env.NAMESRV_ADDR (as Java), else required
   */
  namesrvAddr?: string | readonly string[] | undefined;
  /** Wraps topics and groups as `<namespace>%<name>` (Java `namespace`). @default undefined */
  namespace?: string | undefined;
  /** Part of the client id. `DEFAULT` becomes `<pid>#<hrtime>`, unique per process. @default 'DEFAULT' */
  instanceName?: string | undefined;
  /** Client IP in the client id (`ip@instance@unit`). @default the first non-internal IPv4, else 127.0.0.1 */
  clientIP?: string | undefined;
  /** Appended to the client id (`ip@instance@unit`). @default undefined */
  unitName?: string | undefined;
  /** LanguageCode sent in each command (a name of Java's `LanguageCode`). @default 'JAVA' */
  language?: string | undefined;
  /**
   * Timeout of every request that is not a send or a long poll: NameServer lookups, offsets,
   * locks, membership, acks, admin requests (ms; Java `mqClientApiTimeout`). @default 3000
   */
  mqClientApiTimeout?: number | undefined;
  /** Route refresh period of every topic in use (ms). @default 30000 */
  pollNameServerInterval?: number | undefined;
  /** Heartbeat period to every broker (ms). @default 30000 */
  heartbeatBrokerInterval?: number | undefined;
  /**
   * Logger of this client. Clients sharing a client instance (same client id and settings) log
   * instance-level events (route refresh, heartbeats, NameServer failover) through the logger of
   * the client that created the instance; a client that joins an instance created with another
   * logger says so once, on its own logger.
   * @default silentLogger
   */
  logger?: Logger | undefined;
  /**
   * Traces and metrics through OpenTelemetry (docs/observability.md): when `@opentelemetry/api`
   * is installed, the client takes its tracer, meter and propagator from the API's globals (no-ops
   * until the application registers an SDK) and carries the trace context in each message's
   * properties. `false` turns all of it off; without the package it is off anyway.
   * @default true
   */
  openTelemetry?: boolean | undefined;
}

/** Java message trace, taken by the classes that write trace records (Producer, PushConsumer). */
export interface ClientTraceOptions {
  /**
   * Write Java message-trace records to the trace topic, in batches and off the caller's path
   * (Java's format, so `mqadmin queryMsgTraceById` and rocketmq-dashboard show them). A full
   * trace queue drops records (counted in `traceStats()`); it never slows or fails the client.
   * @default false
   */
  enableMsgTrace?: boolean | undefined;
  /** Trace topic when `enableMsgTrace` is on; blank = `RMQ_SYS_TRACE_TOPIC`. @default undefined */
  customizedTraceTopic?: string | undefined;
}

export interface TraceOptions {
  enableMsgTrace: boolean;
  customizedTraceTopic: string | undefined;
}

/** The shared options after defaults and validation. */
export interface ResolvedClientOptions {
  namesrvAddr: readonly string[];
  namespace: string | undefined;
  instanceName: string;
  clientIP: string | undefined;
  unitName: string | undefined;
  language: string;
  mqClientApiTimeout: number;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
  logger: Logger;
  /** Whether the client instruments itself through `@opentelemetry/api` (when installed). */
  openTelemetry: boolean;
  /** ACL credentials and TLS (connection-options.ts). */
  connection: ClientConnection;
}

/** The shared options that have a default. */
export interface ClientDefaults {
  instanceName: string;
  language: string;
  mqClientApiTimeout: number;
  pollNameServerInterval: number;
  heartbeatBrokerInterval: number;
}

/** Java `ClientConfig` defaults. */
export const CLIENT_DEFAULTS: Readonly<ClientDefaults> = Object.freeze({
  instanceName: 'DEFAULT',
  language: 'JAVA',
  mqClientApiTimeout: 3000,
  pollNameServerInterval: 30_000,
  heartbeatBrokerInterval: 30_000,
});

/** Java `TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC` and `DefaultMQProducer.defaultTopicQueueNums`. */
export const AUTO_CREATE_DEFAULTS = Object.freeze({
  createTopicKey: DEFAULT_TOPIC,
  defaultTopicQueueNums: 4,
});

type SharedKey = keyof ClientOptions;
type TraceKey = keyof ClientTraceOptions;

const CLIENT_OPTION_KEYS: Readonly<Record<SharedKey, true>> = Object.freeze({
  namesrvAddr: true,
  namespace: true,
  instanceName: true,
  clientIP: true,
  unitName: true,
  language: true,
  mqClientApiTimeout: true,
  pollNameServerInterval: true,
  heartbeatBrokerInterval: true,
  logger: true,
  openTelemetry: true,
  ...CLIENT_CONNECTION_OPTION_KEYS,
});
const TRACE_OPTION_KEYS: Readonly<Record<TraceKey, true>> = Object.freeze({
  enableMsgTrace: true,
  customizedTraceTopic: true,
});

/** Names some classes used before they took Java's: refused with the name to use. */
const RENAMED: Readonly<Record<string, string>> = Object.freeze({
  requestTimeout: 'mqClientApiTimeout',
  requestTimeoutMs: 'mqClientApiTimeout',
});

const NAMESPACE_PATTERN = /^[%|a-zA-Z0-9_-]+$/;
const ADDRESS_PATTERN = /^[^\s;:]+:\d{1,5}$|^\[[0-9a-fA-F:.]+\]:\d{1,5}$/;

/** How one class takes the shared options. */
export interface ClientOptionsSpec {
  /** The class, for error texts (`SimpleConsumer`). */
  client: string;
  /** The class's own option names; every other key but the shared ones is refused. */
  own: readonly string[];
  /** Whether the class writes message traces (enableMsgTrace, customizedTraceTopic). */
  trace?: boolean;
  /** Shared options the class cannot honour, each with the reason the error gives. */
  unsupported?: Readonly<Partial<Record<SharedKey | TraceKey, string>>>;
  /** Class defaults replacing Java ClientConfig's (Admin's request timeout). */
  defaults?: Readonly<Partial<ClientDefaults>>;
}

/** `"a:1;b:2"` or `['a:1', 'b:2']` → trimmed, de-duplicated list; throws naming `field`. */
export function parseNamesrvAddr(value: unknown, field = 'namesrvAddr'): string[] {
  let parts: unknown[];
  if (typeof value === 'string') parts = value.split(';');
  else if (Array.isArray(value))
    parts = value.flatMap((v: unknown) => (typeof v === 'string' ? v.split(';') : [v]));
  else throw new InvalidArgumentError(field, 'must be "host:port;host:port" or an array of "host:port"');
  const out: string[] = [];
  for (const raw of parts) {
    if (typeof raw !== 'string') throw new InvalidArgumentError(field, `not an address: ${String(raw)}`);
    const addr = raw.trim();
    if (addr.length === 0) continue;
    if (!ADDRESS_PATTERN.test(addr))
      throw new InvalidArgumentError(field, `not a host:port address: ${addr}`);
    const port = Number(addr.slice(addr.lastIndexOf(':') + 1));
    if (port < 1 || port > 65535) throw new InvalidArgumentError(field, `port out of range: ${addr}`);
    if (!out.includes(addr)) out.push(addr);
  }
  if (out.length === 0) throw new InvalidArgumentError(field, 'no NameServer address given');
  return out;
}

/** Validates the trace pair (defaults: off, no custom topic); throws naming the field. */
export function resolveTraceOptions(enableMsgTrace: unknown, customizedTraceTopic: unknown): TraceOptions {
  const enabled = checkBoolean('enableMsgTrace', enableMsgTrace ?? false);
  if (customizedTraceTopic === undefined || customizedTraceTopic === '')
    return { enableMsgTrace: enabled, customizedTraceTopic: undefined };
  const topic = checkString('customizedTraceTopic', customizedTraceTopic);
  const problem = checkTopic(topic, 'customizedTraceTopic');
  if (problem !== undefined) throw new InvalidArgumentError('customizedTraceTopic', problem);
  return { enableMsgTrace: enabled, customizedTraceTopic: topic };
}

/** `''` and undefined mean "not set"; anything else must be a non-empty string. */
function optionalString(field: string, value: unknown): string | undefined {
  return value === undefined || value === '' ? undefined : checkString(field, value);
}

/** A client-id part: no `@` (the separator) and no white space. */
function idPart(field: string, value: string | undefined): string | undefined {
  if (value !== undefined && /[@\s]/.test(value))
    throw new InvalidArgumentError(field, 'must not contain "@" or spaces');
  return value;
}

/** Rejects the keys `spec` does not take: renamed, unsupported (with why), trace on a non-tracing class, unknown. */
function checkKeys(input: object, spec: ClientOptionsSpec): void {
  const values = input as Record<string, unknown>;
  for (const [old, now] of Object.entries(RENAMED))
    if (Object.prototype.hasOwnProperty.call(input, old) && !spec.own.includes(old))
      throw new InvalidArgumentError(old, `is not a known option; it is named ${now} (Java ClientConfig)`);
  const unsupported: Record<string, string> = { ...spec.unsupported };
  if (spec.trace !== true)
    for (const k of Object.keys(TRACE_OPTION_KEYS))
      unsupported[k] ??= `${spec.client} writes no message traces`;
  for (const [key, why] of Object.entries(unsupported))
    if (values[key] !== undefined)
      throw new InvalidArgumentError(key, `${spec.client} cannot honour this option: ${why}`);
  rejectUnknownKeys(input, [
    ...spec.own,
    ...Object.keys(CLIENT_OPTION_KEYS),
    ...(spec.trace === true ? Object.keys(TRACE_OPTION_KEYS) : []),
  ]);
}

/**
 * Checks `input` against the class's key list and resolves the shared options; the class then
 * resolves its own. Throws InvalidArgumentError naming the option.
 */
export function resolveClientOptions(input: unknown, spec: ClientOptionsSpec): ResolvedClientOptions {
  checkObject('options', input);
  checkKeys(input, spec);
  const o = input as ClientOptions;
  const d = { ...CLIENT_DEFAULTS, ...spec.defaults };
  const namesrvRaw = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (namesrvRaw === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
  const namespace = optionalString('namespace', o.namespace);
  if (namespace !== undefined)
    checkString('namespace', namespace, { maxLength: 255, pattern: NAMESPACE_PATTERN });
  const language = o.language ?? d.language;
  if (typeof language !== 'string') throw new InvalidArgumentError('language', 'must be a LanguageCode name');
  // Only names in the LanguageCode table: older brokers reject unknown ones.
  resolveCommandDefaults({ language });
  return {
    namesrvAddr: Object.freeze(parseNamesrvAddr(namesrvRaw)),
    namespace,
    instanceName: idPart('instanceName', optionalString('instanceName', o.instanceName)) ?? d.instanceName,
    clientIP: optionalString('clientIP', o.clientIP),
    unitName: idPart('unitName', optionalString('unitName', o.unitName)),
    language,
    mqClientApiTimeout: checkInt(
      'mqClientApiTimeout',
      o.mqClientApiTimeout ?? d.mqClientApiTimeout,
      1,
      MAX_INT,
    ),
    pollNameServerInterval: checkInt(
      'pollNameServerInterval',
      o.pollNameServerInterval ?? d.pollNameServerInterval,
      10,
      MAX_INT,
    ),
    heartbeatBrokerInterval: checkInt(
      'heartbeatBrokerInterval',
      o.heartbeatBrokerInterval ?? d.heartbeatBrokerInterval,
      10,
      MAX_INT,
    ),
    logger: checkLogger('logger', o.logger ?? silentLogger),
    openTelemetry: checkBoolean('openTelemetry', o.openTelemetry ?? true),
    connection: resolveClientConnection(o),
  };
}

/** `clientIP@instanceName[@unitName]` (docs/protocol.md §8), the IP defaulting to this host's. */
export function clientIdOf(o: ResolvedClientOptions): string {
  return buildClientId(o.clientIP ?? localClientIp(), o.instanceName, o.unitName);
}

/**
 * The ClientInstance config of a client: its shared options plus the auto-create settings. A
 * consumer or Admin creates no topic; Java's producer defaults let it share a default
 * producer's instance (both are part of the instance key).
 */
export function clientInstanceConfig(
  o: ResolvedClientOptions,
  clientId: string,
  autoCreate: { createTopicKey: string; defaultTopicQueueNums: number } = AUTO_CREATE_DEFAULTS,
): ClientInstanceConfig {
  return {
    clientId,
    namesrvAddr: o.namesrvAddr,
    namespace: o.namespace,
    language: o.language,
    mqClientApiTimeout: o.mqClientApiTimeout,
    pollNameServerInterval: o.pollNameServerInterval,
    heartbeatBrokerInterval: o.heartbeatBrokerInterval,
    createTopicKey: autoCreate.createTopicKey,
    defaultTopicQueueNums: autoCreate.defaultTopicQueueNums,
    logger: o.logger,
    connection: o.connection,
  };
}
