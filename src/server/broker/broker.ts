/**
 * An embedded RocketMQ broker (master only): the send path over MessageStore, pull with long
 * polling, consumer offsets, heartbeats, delay levels, transactions, and NameServer registration
 * every `registerNameServerPeriod`. Speaks the Java 4.9.x/5.x remoting protocol.
 */
import { join } from 'node:path';
import { IllegalStateError } from '../../errors.js';
import { createResponse, type RemotingCommand } from '../../protocol/command.js';
import type { TopicConfigSerializeWrapper } from '../../protocol/headers/register.js';
import type { SocketAddress } from '../../protocol/message/stored-message.js';
import { isReadable, isWriteable } from '../../protocol/perm.js';
import type { Connection } from '../../remoting/connection.js';
import type { RequestHandler } from '../../remoting/options.js';
import { RemotingServer } from '../../remoting/server.js';
import { AclGate } from '../acl/access-validator.js';
import { AclSource } from '../acl/acl-source.js';
import type { Logger } from '../../observability/logger.js';
import { setDiskFull } from '../store/fault-injection.js';
import { MessageStore } from '../store/message-store.js';
import type { MessageToStore } from '../store/types.js';
import { BrokerStats } from './broker-stats.js';
import { ClientManager } from './client-manager.js';
import type { BrokerContext } from './context.js';
import {
  FaultSwitchboard,
  FAULT_INJECTION_REQUEST_CODE,
  faultSpecFromExtFields,
  type FaultSpec,
} from './faults.js';
import { applyDelayLevel } from './message-util.js';
import { NamesrvRegistrar, parseNamesrvAddrList, type BrokerIdentity } from './namesrv-registrar.js';
import { parseDelayLevels, validateBrokerOptions, type BrokerOptions } from './options.js';
import { consumerAdminProcessors } from './processors/consumer-admin.js';
import { brokerConfigProcessors } from './processors/broker-config.js';
import { groupAdminProcessors } from './processors/group-admin.js';
import { relayProcessors } from './processors/relay.js';
import { topicStatsProcessors } from './processors/topic-stats.js';
import { resetOffsetProcessors } from './processors/reset-offset.js';
import { SubscriptionGroupManager } from './subscription-group-manager.js';
import { adminProcessors } from './processors/admin.js';
import { authAdminProcessors } from './processors/auth-admin.js';
import { clientProcessors } from './processors/client.js';
import { offsetProcessors } from './processors/offsets.js';
import { pullProcessors } from './processors/pull.js';
import { queryProcessors } from './processors/query.js';
import { recallProcessors } from './processors/recall.js';
import { retryProcessors } from './processors/send-back.js';
import { sendProcessors } from './processors/send.js';
import { transactionProcessors } from './processors/transaction.js';
import { replyProcessors } from './processors/reply.js';
import { PopService } from './pop/pop-service.js';
import type { TopicRouteData } from '../../protocol/headers/route.js';
import { popProcessors } from './processors/pop.js';
import { assignmentProcessors } from './processors/assignment.js';
import { MessageRequestModeManager } from './message-request-modes.js';
import { PullHoldService } from './pull-hold.js';
import { ScheduleMessageService } from './schedule-service.js';
import { TimerMessageService, type TimerPutResult } from './timer-service.js';
import { TopicConfigManager, newTopicConfig } from './topic-config-manager.js';
import { TransactionCheckService } from './transaction-check.js';

const CLIENT_SCAN_INTERVAL_MS = 10_000;

/**
 * Java `registerBrokerAll`: a broker without READ or WRITE registers each topic with
 * `perm & brokerPermission`, so clients route around it.
 */
export function maskTopicPerms(
  wrapper: TopicConfigSerializeWrapper,
  brokerPermission: number,
): TopicConfigSerializeWrapper {
  if (isWriteable(brokerPermission) && isReadable(brokerPermission)) return wrapper;
  const table: TopicConfigSerializeWrapper['topicConfigTable'] = {};
  for (const [name, config] of Object.entries(wrapper.topicConfigTable))
    table[name] = { ...config, perm: config.perm & brokerPermission };
  return { ...wrapper, topicConfigTable: table };
}

/** Public face of fault injection on a broker started with `faultInjection: true`. */
export interface BrokerFaults {
  set(spec: FaultSpec): void;
  clear(): void;
  current(): FaultSpec;
}

export interface BrokerStopOptions {
  /** false: no UNREGISTER_BROKER, sockets destroyed (like kill -9). @default true */
  graceful?: boolean;
}

// A Broker is the BrokerContext its processors take, structurally (checked in registerProcessors):
// no `implements` clause, since the context's members are tagged internal and left out of the
// published .d.ts (stripInternal), where the clause would name members it no longer has.
export class Broker {
  readonly options: BrokerOptions;
  readonly logger: Logger;
  readonly delayLevels: readonly number[];
  /** @internal */
  readonly clients: ClientManager;
  /** @internal */
  readonly pullHold = new PullHoldService();
  /** @internal */
  readonly stats = new BrokerStats();
  private readonly switchboard = new FaultSwitchboard();
  private storeRef: MessageStore | undefined;
  private topicsRef: TopicConfigManager | undefined;
  private groupsRef: SubscriptionGroupManager | undefined;
  private popRef: PopService | undefined;
  private requestModes: MessageRequestModeManager | undefined;
  private server: RemotingServer | undefined;
  /** The ACL in force, when `acl` is set (reloaded from its file). */
  private acl: AclSource | undefined;
  /** Checks every request against the ACL in force (none when `acl` is unset). */
  private readonly aclGate: AclGate;
  /** The codes registerProcessors gave a processor: the ones the ACL table must cover. */
  private readonly servedCodes = new Set<number>();
  private registrar: NamesrvRegistrar | undefined;
  private schedule: ScheduleMessageService | undefined;
  private timerService: TimerMessageService | undefined;
  private transactionCheck: TransactionCheckService | undefined;
  private timers: NodeJS.Timeout[] = [];
  private port: number;
  private stoppingFlag = false;
  private registering: Promise<void> | undefined;
  private registerAgain = false;

  constructor(options: Partial<BrokerOptions> = {}) {
    this.options = validateBrokerOptions(options);
    this.logger = this.options.logger;
    this.aclGate = new AclGate(
      () => this.acl?.current,
      this.logger,
      (code) => this.servedCodes.has(code),
    );
    this.delayLevels = parseDelayLevels(this.options.messageDelayLevel);
    this.clients = new ClientManager(this.logger);
    this.port = this.options.listenPort;
  }

  /** Fault injection control; throws unless the broker runs with `faultInjection: true`. */
  get faults(): BrokerFaults {
    if (!this.options.faultInjection)
      throw new IllegalStateError(`broker ${this.options.brokerName} was started without faultInjection`);
    const sb = this.switchboard;
    return { set: (spec) => sb.set(spec), clear: () => sb.clear(), current: () => sb.current() };
  }

  get store(): MessageStore {
    if (!this.storeRef) throw new IllegalStateError('broker is not started');
    return this.storeRef;
  }

  /** @internal */
  get topics(): TopicConfigManager {
    if (!this.topicsRef) throw new IllegalStateError('broker is not started');
    return this.topicsRef;
  }

  /** @internal */
  get subscriptionGroups(): SubscriptionGroupManager {
    if (!this.groupsRef) throw new IllegalStateError('broker is not started');
    return this.groupsRef;
  }

  /** @internal [5.x] POP state: checkpoints, orderly locks, revive. */
  get pop(): PopService {
    if (!this.popRef) throw new IllegalStateError('broker is not started');
    return this.popRef;
  }

  /** @internal */
  get transactions(): TransactionCheckService {
    if (!this.transactionCheck) throw new IllegalStateError('broker is not started');
    return this.transactionCheck;
  }

  get stopping(): boolean {
    return this.stoppingFlag;
  }

  get running(): boolean {
    return this.server !== undefined;
  }

  /** "brokerIP1:port" once started. */
  get address(): string {
    return `${this.options.brokerIP1}:${this.port}`;
  }

  get storeHost(): SocketAddress {
    return { address: this.options.brokerIP1, port: this.port };
  }

  private get identity(): BrokerIdentity {
    return {
      clusterName: this.options.brokerClusterName,
      brokerName: this.options.brokerName,
      brokerAddr: this.address,
      brokerId: this.options.brokerId,
      haServerAddr: `${this.options.brokerIP1}:${this.port + 1}`,
    };
  }

  async start(): Promise<string> {
    if (this.server) return this.address;
    this.stoppingFlag = false;
    this.pullHold.start();
    const o = this.options;
    const store = await MessageStore.open({
      dataDir: o.storePathRootDir,
      flush: o.flushDiskType === 'SYNC_FLUSH' ? 'sync' : 'async',
      flushIntervalMs: o.flushIntervalCommitLog,
      segmentSize: o.mappedFileSizeCommitLog,
      maxMessageSize: o.maxMessageSize,
      offsetPersistIntervalMs: o.flushConsumerOffsetInterval,
      fileReservedTime: o.fileReservedTime,
      deleteWhen: o.deleteWhen,
      diskMaxUsedSpaceRatio: o.diskMaxUsedSpaceRatio,
      cleanFileForciblyEnable: o.cleanFileForciblyEnable,
      logger: this.logger,
    });
    try {
      const topics = new TopicConfigManager({
        file: join(o.storePathRootDir, 'config', 'topics.json'),
        brokerName: o.brokerName,
        clusterName: o.brokerClusterName,
        autoCreateTopicEnable: o.autoCreateTopicEnable,
        defaultTopicQueueNums: o.defaultTopicQueueNums,
        delayLevelCount: this.delayLevels.length,
        logger: this.logger,
        onChange: () => void this.registerBrokerAll(),
      });
      await topics.load();
      const groups = new SubscriptionGroupManager(
        join(o.storePathRootDir, 'config', 'subscriptionGroup.json'),
        this.logger,
      );
      await groups.load();
      const requestModes = new MessageRequestModeManager(
        join(o.storePathRootDir, 'config', 'messageRequestMode.json'),
        this.logger,
      );
      await requestModes.load();
      this.requestModes = requestModes;
      this.groupsRef = groups;
      this.storeRef = store;
      this.topicsRef = topics;
      this.popRef = new PopService(this);
      await this.popRef.start();
      this.stats.resetTail();
      store.on('messageArrived', (topic: string, queueId: number, maxOffset: number) => {
        this.stats.noteArrival(topic, queueId, maxOffset);
        this.pullHold.notifyMessageArriving(topic, queueId, maxOffset);
      });

      this.acl?.close();
      this.acl = o.acl === undefined ? undefined : new AclSource(o.acl, this.logger);
      const server = new RemotingServer({
        ...o.serverLimits,
        host: o.listenHost,
        port: this.port,
        logger: this.logger,
        hooks: this.acl === undefined ? [] : [this.aclGate.hook],
        tls: o.tls,
      });
      this.registerProcessors(server);
      server.on('connection', (conn: Connection) => {
        if (this.options.faultInjection && this.switchboard.refusing) conn.close();
      });
      server.on('disconnect', (conn: Connection) => {
        this.clients.connectionClosed(conn);
        this.pullHold.releaseOwner(conn);
        this.popRef?.waiters.releaseOwner(conn);
      });
      const { port } = await server.listen();
      this.port = port;
      this.server = server;
    } catch (err) {
      await this.popRef?.stop().catch(() => undefined);
      this.popRef = undefined;
      await store.close().catch(() => undefined);
      this.storeRef = undefined;
      throw err;
    }

    this.schedule = new ScheduleMessageService(this, join(o.storePathRootDir, 'config', 'delayOffset.json'));
    await this.schedule.start();
    this.timerService = new TimerMessageService(
      this,
      join(o.storePathRootDir, 'config', 'timerCheckpoint.json'),
    );
    await this.timerService.start();
    this.transactionCheck = new TransactionCheckService(
      this,
      join(o.storePathRootDir, 'config', 'transaction.json'),
    );
    await this.transactionCheck.start();
    this.switchboard.onChange((spec) => {
      if (spec.refuseConnections) this.closeClientConnectionsSoon();
      setDiskFull(o.storePathRootDir, spec.diskFull === true);
    });

    this.stats.start();
    // Java: the broker talks TLS to the NameServer when its own server mode is enforcing.
    this.registrar = new NamesrvRegistrar(this.logger, o.tls?.mode === 'enforcing', o.namesrvTlsCa);
    await this.registerBrokerAll();
    this.every(o.registerNameServerPeriod, () => void this.registerBrokerAll());
    this.every(CLIENT_SCAN_INTERVAL_MS, () => this.clients.scanNotActive(o.channelExpiredTimeout));
    this.logger.info('broker started', { brokerName: o.brokerName, address: this.address });
    return this.address;
  }

  private every(ms: number, fn: () => void): void {
    const t = setInterval(fn, ms);
    t.unref();
    this.timers.push(t);
  }

  /** After a refuse fault is set: existing connections go too (after the control reply is out). */
  private closeClientConnectionsSoon(): void {
    const t = setTimeout(() => {
      if (!this.switchboard.refusing || !this.server) return;
      for (const conn of [...this.server.connections]) conn.close();
    }, 50);
    t.unref();
  }

  private registerProcessors(server: RemotingServer): void {
    const ctx = this satisfies BrokerContext; // checked here, as an `implements` clause would
    const all: Array<[number, RequestHandler]> = [
      ...sendProcessors(ctx),
      ...pullProcessors(ctx),
      ...clientProcessors(ctx),
      ...offsetProcessors(ctx),
      ...adminProcessors(ctx),
      ...consumerAdminProcessors(ctx, this.pop),
      ...brokerConfigProcessors(ctx),
      ...groupAdminProcessors(ctx),
      ...resetOffsetProcessors(ctx),
      ...relayProcessors(ctx),
      ...topicStatsProcessors(ctx),
      ...queryProcessors(ctx),
      ...retryProcessors(ctx),
      ...transactionProcessors(ctx),
      ...replyProcessors(ctx),
      ...popProcessors(ctx, this.pop),
      ...recallProcessors(ctx),
      ...authAdminProcessors(),
      ...assignmentProcessors(ctx, {
        modes: this.requestModes!,
        topicRoute: (topic) => this.topicRoute(topic),
      }),
    ];
    if (this.options.faultInjection) all.push([FAULT_INJECTION_REQUEST_CODE, (r) => this.faultControl(r)]);
    for (const [code, handler] of all) {
      const faulty = this.options.faultInjection && code !== FAULT_INJECTION_REQUEST_CODE;
      server.registerProcessor(code, faulty ? this.withFaults(code, handler) : handler);
      this.servedCodes.add(code);
    }
  }

  private faultControl(request: RemotingCommand): RemotingCommand {
    const spec = faultSpecFromExtFields(request.extFields ?? {});
    if (spec === undefined) this.switchboard.clear();
    else this.switchboard.set(spec);
    const current = this.switchboard.current();
    return createResponse(request, 0, undefined, undefined, Buffer.from(JSON.stringify(current)));
  }

  private withFaults(code: number, handler: RequestHandler): RequestHandler {
    return async (request, conn) => {
      const decision = this.switchboard.decide(code);
      if (decision.latencyMs > 0) {
        // unref'd: an injected delay must not keep the process alive on its own.
        await new Promise((r) => setTimeout(r, decision.latencyMs).unref());
      }
      switch (decision.kind) {
        case 'hang':
          return this.switchboard.hangUntilReleased();
        case 'drop':
          conn.close();
          return undefined;
        case 'error': {
          const remark = `[FAULT_INJECTION] injected response code ${decision.code}`;
          if (!decision.afterStore) {
            const response = createResponse(request, decision.code, remark);
            response.extFields = {
              MSG_REGION: this.options.regionId,
              TRACE_ON: String(this.options.traceOn),
            };
            return response;
          }
          const response = await handler(request, conn);
          if (response && response.code === 0) {
            response.code = decision.code;
            response.remark = remark;
          }
          return response;
        }
        default:
          return handler(request, conn);
      }
    };
  }

  /** @internal Whether the account the ACL checked `request` as holds `perm` on `resource`. */
  aclAllows(request: RemotingCommand, resource: string, perm: number): boolean {
    return this.aclGate.allows(request, resource, perm);
  }

  /** @internal Whether the ACL checked `request` as an admin account (true when ACL is off). */
  aclIsAdmin(request: RemotingCommand): boolean {
    return this.aclGate.isAdmin(request);
  }

  putMessage(msg: MessageToStore): Promise<TimerPutResult> {
    const delayed = applyDelayLevel(msg, this.delayLevels.length);
    // A DELAY level wins over timer properties, as in Java 5.x.
    if (delayed !== msg || this.timerService === undefined) return this.store.putMessage(delayed);
    return this.timerService.put(msg);
  }

  /** @internal The timer-message service (undefined while stopped). */
  get timerMessages(): TimerMessageService | undefined {
    return this.timerService;
  }

  /** The topic's route from the NameServers (QUERY_ASSIGNMENT); undefined without one. */
  private async topicRoute(topic: string): Promise<TopicRouteData | undefined> {
    const addrs = parseNamesrvAddrList(this.options.namesrvAddr);
    if (addrs.length === 0 || !this.registrar) return undefined;
    return this.registrar.topicRoute(addrs, topic);
  }

  /** Registers with every NameServer now; concurrent calls coalesce into one more round. */
  registerBrokerAll(): Promise<void> {
    if (!this.registrar || !this.topicsRef || this.stoppingFlag) return Promise.resolve();
    if (this.registering) {
      this.registerAgain = true;
      return this.registering;
    }
    const run = async (): Promise<void> => {
      do {
        this.registerAgain = false;
        const addrs = parseNamesrvAddrList(this.options.namesrvAddr);
        if (addrs.length === 0 || !this.registrar || !this.topicsRef) return;
        await this.registrar.registerAll(
          addrs,
          this.identity,
          maskTopicPerms(this.topicsRef.wrapper(), this.options.brokerPermission),
        );
      } while (this.registerAgain && !this.stoppingFlag);
    };
    this.registering = run().finally(() => {
      this.registering = undefined;
    });
    return this.registering;
  }

  /** Creates (or updates) a topic with `queues` read/write queues and registers at once. */
  async createTopic(topic: string, queues = this.options.defaultTopicQueueNums, perm = 6): Promise<void> {
    this.topics.update(newTopicConfig(topic, queues, perm));
    await this.topics.persist();
    await this.registerBrokerAll();
  }

  async stop(options: BrokerStopOptions = {}): Promise<void> {
    const server = this.server;
    if (!server) return;
    const graceful = options.graceful ?? true;
    this.stoppingFlag = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.switchboard.dispose();
    setDiskFull(this.options.storePathRootDir, false);
    this.stats.stop();
    this.pullHold.stop();
    await this.popRef?.stop();
    // Background runs put messages and write state files: let them finish before the store
    // closes and before a caller removes the data directory.
    await this.schedule?.stop();
    await this.timerService?.stop();
    await this.transactionCheck?.stop({ persist: graceful });
    await this.registering?.catch(() => undefined);
    if (graceful && this.registrar)
      await this.registrar.unregisterAll(parseNamesrvAddrList(this.options.namesrvAddr), this.identity);
    await this.registrar?.close();
    this.registrar = undefined;
    await server.close();
    this.server = undefined;
    this.acl?.close();
    this.acl = undefined;
    if (graceful) {
      await this.schedule?.persist().catch(() => undefined);
      await this.topicsRef?.persist().catch(() => undefined);
    }
    await this.schedule?.settled();
    await this.topicsRef?.settled();
    await this.groupsRef?.settled();
    await this.storeRef?.close();
    this.storeRef = undefined;
    this.topicsRef = undefined;
    this.popRef = undefined;
    this.schedule = undefined;
    this.timerService = undefined;
    this.transactionCheck = undefined;
    this.logger.info('broker stopped', { brokerName: this.options.brokerName, graceful });
  }
}
