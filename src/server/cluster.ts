/**
 * EmbeddedCluster: a NameServer and N brokers in this process, on loopback, for tests, demos and
 * benchmarks. Each broker keeps its data dir and port across stopBroker/startBroker.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import {
  checkBoolean,
  checkEnum,
  checkInt,
  checkLogger,
  checkObject,
  checkString,
  withDefaults,
} from '../options.js';
import { Broker, type BrokerStopOptions } from './broker/broker.js';
import type { BrokerOptions } from './broker/options.js';
import { NameServer, type NameServerOptions } from './namesrv/namesrv.js';

export interface EmbeddedClusterOptions {
  /** How many brokers (named broker-a, broker-b, ...) or their names. @default 2 */
  brokers: number | string[];
  /** Parent folder of every broker's store; a temp dir (removed on stop) when absent. @default undefined */
  dataDir: string | undefined;
  /** NameServer port; 0 picks a free one. @default 0 */
  namesrvPort: number;
  /** Store flush mode of every broker. @default 'async' */
  flush: 'async' | 'sync';
  /** Enable fault injection on every broker. @default false */
  faultInjection: boolean;
  /** @default 'DefaultCluster' */
  clusterName: string;
  /** @default silentLogger */
  logger: Logger;
  /**
   * Extra options for every broker (names, ports and dirs are set by the cluster). Unlike a lone
   * Broker, `enablePropertyFilter` is true unless given, so SQL92 consumers work. @default {}
   */
  brokerOptions: Partial<BrokerOptions>;
  /** Extra NameServer options (e.g. a short `brokerChannelExpiredMs`). @default {} */
  namesrvOptions: Partial<NameServerOptions>;
}

export const DEFAULT_EMBEDDED_CLUSTER_OPTIONS: Readonly<EmbeddedClusterOptions> = Object.freeze({
  brokers: 2,
  dataDir: undefined,
  namesrvPort: 0,
  flush: 'async',
  faultInjection: false,
  clusterName: 'DefaultCluster',
  logger: silentLogger,
  brokerOptions: {},
  namesrvOptions: {},
});

/** broker-a … broker-z, broker-aa … */
export function brokerNameAt(i: number): string {
  let s = '';
  let n = i;
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return `broker-${s}`;
}

function validate(options: Partial<EmbeddedClusterOptions>): EmbeddedClusterOptions {
  const o = withDefaults<EmbeddedClusterOptions>(DEFAULT_EMBEDDED_CLUSTER_OPTIONS, options);
  if (typeof o.brokers === 'number') {
    checkInt('brokers', o.brokers, 0, 64);
  } else if (
    !Array.isArray(o.brokers) ||
    o.brokers.some((n) => typeof n !== 'string' || n === '') ||
    new Set(o.brokers).size !== o.brokers.length
  ) {
    throw new InvalidArgumentError('brokers', 'must be a count or a list of distinct names');
  }
  checkEnum('flush', o.flush, ['async', 'sync'] as const);
  checkInt('namesrvPort', o.namesrvPort, 0, 65535);
  checkBoolean('faultInjection', o.faultInjection);
  checkString('clusterName', o.clusterName);
  checkLogger('logger', o.logger);
  checkObject('brokerOptions', o.brokerOptions);
  checkObject('namesrvOptions', o.namesrvOptions);
  return o;
}

export interface EmbeddedBroker {
  name: string;
  addr: string;
  broker: Broker;
}

export class EmbeddedCluster {
  private readonly entries: EmbeddedBroker[];

  private constructor(
    readonly namesrv: NameServer,
    brokers: Broker[],
    private readonly dataDir: string,
    private readonly ownsDataDir: boolean,
  ) {
    this.entries = brokers.map((broker) => ({
      name: broker.options.brokerName,
      addr: broker.address,
      broker,
    }));
  }

  static async start(options: Partial<EmbeddedClusterOptions> = {}): Promise<EmbeddedCluster> {
    const o = validate(options);
    const ownsDataDir = o.dataDir === undefined;
    const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'rocketmq-ts-cluster-')));
    const names =
      typeof o.brokers === 'number'
        ? Array.from({ length: o.brokers }, (_, i) => brokerNameAt(i))
        : o.brokers;
    const namesrv = new NameServer({ ...o.namesrvOptions, listenPort: o.namesrvPort, logger: o.logger });
    const brokers: Broker[] = [];
    try {
      const namesrvAddr = await namesrv.start();
      for (const name of names) {
        const broker = new Broker({
          ...o.brokerOptions,
          brokerName: name,
          brokerClusterName: o.clusterName,
          listenPort: o.brokerOptions.listenPort ?? 0,
          // SQL92 subscriptions work out of the box here (Java's default is off).
          enablePropertyFilter: o.brokerOptions.enablePropertyFilter ?? true,
          namesrvAddr,
          storePathRootDir: join(dataDir, name),
          flushDiskType: o.flush === 'sync' ? 'SYNC_FLUSH' : 'ASYNC_FLUSH',
          faultInjection: o.faultInjection,
          logger: o.logger,
        });
        brokers.push(broker);
        await broker.start();
      }
    } catch (err) {
      for (const b of brokers) await b.stop().catch(() => undefined);
      await namesrv.stop().catch(() => undefined);
      if (ownsDataDir) await rm(dataDir, { recursive: true, force: true });
      throw err;
    }
    return new EmbeddedCluster(namesrv, brokers, dataDir, ownsDataDir);
  }

  get namesrvAddr(): string {
    return this.namesrv.address;
  }

  get brokers(): ReadonlyArray<EmbeddedBroker> {
    return this.entries;
  }

  /** Folder holding each broker's store (`<dataDir>/<brokerName>`). */
  get dataDirectory(): string {
    return this.dataDir;
  }

  broker(name: string): Broker {
    const entry = this.entries.find((e) => e.name === name);
    if (!entry) throw new InvalidArgumentError('name', `no broker named ${name}`);
    return entry.broker;
  }

  async stopBroker(name: string, options: BrokerStopOptions = {}): Promise<void> {
    await this.broker(name).stop(options);
  }

  async startBroker(name: string): Promise<void> {
    await this.broker(name).start();
  }

  /** Creates `topic` with `queues` queues on every running broker and registers it at once. */
  async createTopic(topic: string, queues = 8): Promise<void> {
    for (const e of this.entries) if (e.broker.running) await e.broker.createTopic(topic, queues);
  }

  async stop(): Promise<void> {
    for (const e of this.entries) await e.broker.stop().catch(() => undefined);
    await this.namesrv.stop();
    if (this.ownsDataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}
