/** Broker configuration, with Java `BrokerConfig` / `MessageStoreConfig` names and defaults. */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../errors.js';
import { silentLogger, type Logger } from '../../observability/logger.js';
import { PermName } from '../../protocol/perm.js';
import { DEFAULT_MAX_MESSAGE_SIZE } from '../../protocol/validation.js';
import { validateServerLimits, type ServerLimits } from '../../remoting/server.js';
import {
  checkPem,
  resolveServerTls,
  type PemInput,
  type ServerTlsOptions,
} from '../../remoting/tls-server.js';
import type { AclConfig } from '../acl/acl-config.js';
import {
  checkBoolean,
  checkEnum,
  checkInt,
  checkLogger,
  checkObject,
  checkString,
  withDefaults,
} from '../../options.js';
import { DEFAULT_STORE_OPTIONS, resolveStoreOptions } from '../store/options.js';

export type FlushDiskType = 'ASYNC_FLUSH' | 'SYNC_FLUSH';

export interface BrokerOptions {
  /** @default 'broker-a' */
  brokerName: string;
  /** @default 'DefaultCluster' */
  brokerClusterName: string;
  /** 0 = master; anything else is rejected (slaves are not supported). @default 0 */
  brokerId: number;
  /** TCP port; 0 picks a free one (kept across restarts of the same Broker object). @default 10911 */
  listenPort: number;
  /** Interface to bind. @default '127.0.0.1' */
  listenHost: string;
  /** Connection, frame, idle and slow-reader limits of its server (Java defaults). @default {} */
  serverLimits: Partial<ServerLimits>;
  /** NameServer addresses, `;`-separated (Java style). Empty: register nowhere. @default '' */
  namesrvAddr: string;
  /** Root of the store: commit log, queues, `config/`. @default '~/store' */
  storePathRootDir: string;
  /** Create unknown topics from TBW102 on first send. @default true */
  autoCreateTopicEnable: boolean;
  /** Queues of TBW102 (and so the most an auto-created topic gets). @default 8 */
  defaultTopicQueueNums: number;
  /** Largest body accepted, bytes. @default 4194304 */
  maxMessageSize: number;
  /** SYNC_FLUSH acknowledges a send only after fsync. @default 'ASYNC_FLUSH' */
  flushDiskType: FlushDiskType;
  /** Async flush interval, ms (Java `flushIntervalCommitLog`). @default 500 */
  flushIntervalCommitLog: number;
  /** Commit-log segment size, bytes (Java `mappedFileSizeCommitLog`). @default 67108864 */
  mappedFileSizeCommitLog: number;
  /** Hours a commit-log file is kept (Java; store retention, docs/architecture.md). @default 72 */
  fileReservedTime: number;
  /** Hours of day, `;`-separated, when expired files are deleted (Java). @default '04' */
  deleteWhen: string;
  /** Disk use (percent) above which expired files are deleted at any hour (Java). @default 75 */
  diskMaxUsedSpaceRatio: number;
  /** Delete unexpired files when the disk is above 85 % (Java). @default true */
  cleanFileForciblyEnable: boolean;
  /** Re-registration period, ms; Java clamps it to [10000, 60000], we accept any value >= 100. @default 30000 */
  registerNameServerPeriod: number;
  /** Address advertised to the NameServer and written as store host. @default '127.0.0.1' */
  brokerIP1: string;
  /** `MSG_REGION` of send responses. @default 'DefaultRegion' */
  regionId: string;
  /** `TRACE_ON` of send responses. @default true */
  traceOn: boolean;
  /**
   * Broker permission (PermName bits); without WRITE no send is accepted. Topics are registered
   * with the NameServer as `perm & brokerPermission` when READ or WRITE is missing (Java). @default 6
   */
  brokerPermission: number;
  /** Producer/consumer connections silent for this long are dropped. @default 120000 */
  channelExpiredTimeout: number;
  /** Hold PULL requests with FLAG_SUSPEND until a message arrives (long polling). @default true */
  longPollingEnable: boolean;
  /**
   * Evaluate SQL92 subscriptions (Java `enablePropertyFilter`). Off, a SQL92 pull or
   * CHECK_CLIENT_CONFIG gets SYSTEM_ERROR; `EmbeddedCluster` turns it on. @default false
   */
  enablePropertyFilter: boolean;
  /** Hold time when long polling is off, ms. @default 1000 */
  shortPollingTimeMills: number;
  /** Delay levels (Java `messageDelayLevel`): units ms, s, m, h, d. @default '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h' */
  messageDelayLevel: string;
  /** [5.x] Accept timer messages (TIMER_DELAY_SEC / TIMER_DELAY_MS / TIMER_DELIVER_MS). @default true */
  timerWheelEnable: boolean;
  /** [5.x] Longest timer delay accepted, s (Java's default: 3 days). @default 259200 */
  timerMaxDelaySec: number;
  /**
   * [5.x 5.3.2+] Accept RECALL_MESSAGE (Java `recallMessageEnable`, off in Apache's brokers too):
   * off, a recall gets NO_PERMISSION "recall failed, operation is forbidden". Read per request, so
   * UPDATE_BROKER_CONFIG (`mqadmin updateBrokerConfig -k recallMessageEnable -v true`) turns it on
   * at once. @default false
   */
  recallMessageEnable: boolean;
  /**
   * [5.x] The order a POP reads a topic's queues in (Java `priorityOrderAsc`): from the highest
   * queue id down, so on a PRIORITY topic a higher queue is a higher priority; `false` reads
   * upwards. Read per request (UPDATE_BROKER_CONFIG changes it at once). @default true
   */
  priorityOrderAsc: boolean;
  /** Retries before a message goes to `%DLQ%<group>` (subscription group `retryMaxTimes`). @default 16 */
  maxReconsumeTimes: number;
  /** [5.x POP] How often expired POP checkpoints are revived into the retry topic, ms (Java `reviveInterval`). @default 1000 */
  reviveInterval: number;
  /** Refuse TRAN_MSG half messages. @default false */
  rejectTransactionMessage: boolean;
  /** A half message unresolved after this long is checked with the producer, ms. @default 6000 */
  transactionTimeOut: number;
  /** How often unresolved half messages are looked for, ms. @default 60000 */
  transactionCheckInterval: number;
  /** Checks per half message before it is dropped. @default 15 */
  transactionCheckMax: number;
  /** Consumer offsets are written to disk this often, ms. @default 5000 */
  flushConsumerOffsetInterval: number;
  /** Accept fault-injection control (code 9901, `broker.faults`). @default false */
  faultInjection: boolean;
  /**
   * [5.x] Refuse a message whose type (by its properties: FIFO, DELAY, TRANSACTION, ...) the
   * topic's `message.type` attribute does not accept, with MESSAGE_ILLEGAL and the 5.x Proxy's
   * remark (the Proxy's `enableTopicMessageTypeCheck`; Apache's brokers never check, hence off).
   * Retry and DLQ topics are not checked. docs/protocol.md §13.2.
   * @default false
   */
  enableTopicMessageTypeCheck: boolean;
  /**
   * ACL 1.0 (Java `aclEnable=true` + `plain_acl.yml`): the accounts inline, or the path of a
   * `plain_acl.yml`-compatible file, reloaded when it changes (src/server/acl/).
   * @default undefined: no ACL, every request allowed
   */
  acl: AclConfig | string | undefined;
  /** TLS (Java `tls.server.mode` + certificate). @default undefined: plain TCP */
  tls: ServerTlsOptions | undefined;
  /**
   * The CA that signs the NameServers' certificates, for a broker registering over TLS (Java
   * `tls.client.trustCertPath` with `tls.client.authServer=true`): the chain is verified, the
   * host name not (as Java). Without it the broker encrypts but trusts any NameServer
   * certificate, as Java's default does.
   * @default undefined
   */
  namesrvTlsCa: PemInput | undefined;
  /** @default silentLogger */
  logger: Logger;
}

export const DEFAULT_DELAY_LEVELS = '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h';

export const DEFAULT_BROKER_OPTIONS: Readonly<BrokerOptions> = Object.freeze({
  brokerName: 'broker-a',
  brokerClusterName: 'DefaultCluster',
  brokerId: 0,
  listenPort: 10911,
  listenHost: '127.0.0.1',
  serverLimits: {},
  namesrvAddr: '',
  storePathRootDir: join(homedir(), 'store'),
  autoCreateTopicEnable: true,
  defaultTopicQueueNums: 8,
  maxMessageSize: DEFAULT_MAX_MESSAGE_SIZE,
  flushDiskType: 'ASYNC_FLUSH',
  flushIntervalCommitLog: 500,
  mappedFileSizeCommitLog: 64 * 1024 * 1024,
  fileReservedTime: DEFAULT_STORE_OPTIONS.fileReservedTime,
  deleteWhen: DEFAULT_STORE_OPTIONS.deleteWhen,
  diskMaxUsedSpaceRatio: DEFAULT_STORE_OPTIONS.diskMaxUsedSpaceRatio,
  cleanFileForciblyEnable: DEFAULT_STORE_OPTIONS.cleanFileForciblyEnable,
  registerNameServerPeriod: 30_000,
  brokerIP1: '127.0.0.1',
  regionId: 'DefaultRegion',
  traceOn: true,
  brokerPermission: PermName.PERM_READ | PermName.PERM_WRITE,
  channelExpiredTimeout: 120_000,
  longPollingEnable: true,
  enablePropertyFilter: false,
  shortPollingTimeMills: 1000,
  messageDelayLevel: DEFAULT_DELAY_LEVELS,
  timerWheelEnable: true,
  timerMaxDelaySec: 259_200,
  recallMessageEnable: false,
  priorityOrderAsc: true,
  maxReconsumeTimes: 16,
  reviveInterval: 1000,
  rejectTransactionMessage: false,
  transactionTimeOut: 6000,
  transactionCheckInterval: 60_000,
  transactionCheckMax: 15,
  flushConsumerOffsetInterval: 5000,
  faultInjection: false,
  enableTopicMessageTypeCheck: false,
  acl: undefined,
  tls: undefined,
  namesrvTlsCa: undefined,
  logger: silentLogger,
});

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `'1s 5s 1m'` → `[1000, 5000, 60000]`; index = level − 1. */
export function parseDelayLevels(spec: string): number[] {
  const out: number[] = [];
  for (const word of spec.trim().split(/\s+/)) {
    const m = /^(\d+)(ms|s|m|h|d)$/.exec(word);
    if (!m)
      throw new InvalidArgumentError('messageDelayLevel', `bad level "${word}" (want e.g. 1s, 500ms, 2m)`);
    out.push(Number(m[1]) * (UNIT_MS[m[2] as string] as number));
  }
  return out;
}

export function validateBrokerOptions(options: Partial<BrokerOptions> = {}): BrokerOptions {
  const o = withDefaults<BrokerOptions>(DEFAULT_BROKER_OPTIONS, options);
  for (const field of [
    'brokerName',
    'brokerClusterName',
    'storePathRootDir',
    'brokerIP1',
    'listenHost',
    'regionId',
  ] as const) {
    checkString(field, o[field]);
  }
  checkString('namesrvAddr', o.namesrvAddr, { allowEmpty: true });
  checkInt('brokerId', o.brokerId, 0);
  // A slave would need HA replication and would still register as a master here.
  if (o.brokerId !== 0) throw new InvalidArgumentError('brokerId', 'slaves are not supported');
  checkInt('listenPort', o.listenPort, 0, 65535);
  validateServerLimits('serverLimits', o.serverLimits);
  checkInt('defaultTopicQueueNums', o.defaultTopicQueueNums, 1, 1024);
  checkInt('maxMessageSize', o.maxMessageSize, 1);
  checkInt('flushIntervalCommitLog', o.flushIntervalCommitLog, 1);
  checkInt('mappedFileSizeCommitLog', o.mappedFileSizeCommitLog, 4096);
  checkInt('registerNameServerPeriod', o.registerNameServerPeriod, 100);
  // The store's own validator names the bad field.
  resolveStoreOptions({
    dataDir: o.storePathRootDir,
    fileReservedTime: o.fileReservedTime,
    deleteWhen: o.deleteWhen,
    diskMaxUsedSpaceRatio: o.diskMaxUsedSpaceRatio,
    cleanFileForciblyEnable: o.cleanFileForciblyEnable,
  });
  checkInt('brokerPermission', o.brokerPermission, 0, 15);
  checkInt('channelExpiredTimeout', o.channelExpiredTimeout, 1);
  checkInt('shortPollingTimeMills', o.shortPollingTimeMills, 1);
  checkInt('maxReconsumeTimes', o.maxReconsumeTimes, 0);
  checkInt('timerMaxDelaySec', o.timerMaxDelaySec, 1);

  checkInt('reviveInterval', o.reviveInterval, 10);
  checkInt('transactionTimeOut', o.transactionTimeOut, 1);
  checkInt('transactionCheckInterval', o.transactionCheckInterval, 1);
  checkInt('transactionCheckMax', o.transactionCheckMax, 1);
  checkInt('flushConsumerOffsetInterval', o.flushConsumerOffsetInterval, 1);
  checkEnum('flushDiskType', o.flushDiskType, ['ASYNC_FLUSH', 'SYNC_FLUSH'] as const);
  for (const field of [
    'autoCreateTopicEnable',
    'traceOn',
    'longPollingEnable',
    'rejectTransactionMessage',
    'faultInjection',
    'timerWheelEnable',
    'recallMessageEnable',
    'priorityOrderAsc',
    'enableTopicMessageTypeCheck',
  ] as const) {
    checkBoolean(field, o[field]);
  }
  for (const field of ['enablePropertyFilter', 'longPollingEnable'] as const)
    if (typeof o[field] !== 'boolean') throw new InvalidArgumentError(field, 'must be a boolean');
  parseDelayLevels(o.messageDelayLevel);
  if (o.acl !== undefined && typeof o.acl !== 'string') checkObject('acl', o.acl);
  resolveServerTls(o.tls);
  if (o.namesrvTlsCa !== undefined) checkPem('namesrvTlsCa', o.namesrvTlsCa);
  checkLogger('logger', o.logger);
  return o;
}
