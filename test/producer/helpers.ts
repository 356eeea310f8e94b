/** Shared fixtures for producer unit tests. */
import type { TopicRouteData } from '../../src/protocol/headers/route.js';
import { silentLogger } from '../../src/observability/logger.js';
import { DEFAULT_COMMAND_DEFAULTS, type RemotingCommand } from '../../src/protocol/command.js';
import type { SendLoopSettings } from '../../src/producer/send-loop.js';
import type {
  BrokerIsolatedEvent,
  BrokerRecoveredEvent,
  FaultStrategyHost,
} from '../../src/producer/fault/latency-fault-tolerance.js';

/** A route with `brokers` (name → write queue count), all writable, each with a master. */
export function routeOf(brokers: Record<string, number>, perm = 6): TopicRouteData {
  const names = Object.keys(brokers);
  return {
    queueDatas: names.map((brokerName) => ({
      brokerName,
      readQueueNums: brokers[brokerName] as number,
      writeQueueNums: brokers[brokerName] as number,
      perm,
      topicSysFlag: 0,
    })),
    brokerDatas: names.map((brokerName, i) => ({
      cluster: 'C',
      brokerName,
      brokerAddrs: { '0': `127.0.0.1:${10911 + i}` },
    })),
    filterServerTable: {},
  };
}

export interface FakeHost extends FaultStrategyHost {
  clock: number;
  isolated: BrokerIsolatedEvent[];
  recovered: BrokerRecoveredEvent[];
  probeResult: boolean;
  probes: string[];
  known: Set<string> | undefined;
}

/** A deterministic strategy host: manual clock, scripted probe results, recorded events. */
export function fakeHost(randomValues: number[] = []): FakeHost {
  let r = 0;
  const host: FakeHost = {
    clock: 1_000_000,
    isolated: [],
    recovered: [],
    probeResult: true,
    probes: [],
    known: undefined,
    now: () => host.clock,
    random: () => (randomValues.length > 0 ? (randomValues[r++ % randomValues.length] as number) : 0),
    probe: (name) => {
      host.probes.push(name);
      return Promise.resolve(host.probeResult);
    },
    brokerKnown: (name) => host.known === undefined || host.known.has(name),
    onIsolated: (e) => host.isolated.push(e),
    onRecovered: (e) => host.recovered.push(e),
    logger: silentLogger,
  };
  return host;
}

/** Send-loop settings of the unit tests (Java defaults, a 1 s attempt cap), with overrides. */
export function sendLoopSettings(over: Partial<SendLoopSettings> = {}): SendLoopSettings {
  return {
    producerGroup: 'PG',
    createTopicKey: 'TBW102',
    defaultTopicQueueNums: 4,
    commandDefaults: DEFAULT_COMMAND_DEFAULTS,
    sendMsgTimeout: 3000,
    retryTimesWhenSendFailed: 2,
    retryAnotherBrokerWhenNotStoreOK: false,
    retryResponseCodes: new Set([1, 2, 14, 16, 17]),
    sendAttemptTimeout: 1000,
    logger: silentLogger,
    ...over,
  };
}

/** A broker's answer to a send: `code` (SUCCESS by default) for the queue the request named. */
export function sendResponse(cmd: RemotingCommand, code = 0): RemotingCommand {
  return {
    code,
    language: 'JAVA',
    version: 407,
    opaque: 0,
    flag: 1,
    serializeType: 0,
    extFields: {
      msgId: 'OFF',
      queueId: cmd.extFields?.['e'] ?? '0',
      queueOffset: '7',
      MSG_REGION: 'R',
      TRACE_ON: 'true',
    },
  };
}
