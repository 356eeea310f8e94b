/** Builds the configured latency fault strategy. */
import type { ResolvedProducerOptions } from '../options.js';
import { AdaptiveFaultStrategy } from './adaptive.js';
import { Java49FaultStrategy } from './java-4.9.js';
import { Java5FaultStrategy } from './java-5.js';
import type { FaultStrategyHost, LatencyFaultStrategy } from './latency-fault-tolerance.js';
import { NoFaultStrategy } from './latency-fault-tolerance.js';

export type FaultStrategyOptions = Pick<
  ResolvedProducerOptions,
  | 'sendLatencyFaultEnable'
  | 'latencyFaultStrategy'
  | 'latencyMax'
  | 'notAvailableDuration'
  | 'detectInterval'
  | 'detectTimeout'
  | 'minBrokerShare'
>;

export function createFaultStrategy(o: FaultStrategyOptions, host: FaultStrategyHost): LatencyFaultStrategy {
  if (!o.sendLatencyFaultEnable) return new NoFaultStrategy();
  switch (o.latencyFaultStrategy) {
    case 'java-4.9':
      return new Java49FaultStrategy(host, o.latencyMax, o.notAvailableDuration);
    case 'java-5':
      return new Java5FaultStrategy(host, {
        latencyMax: o.latencyMax,
        notAvailableDuration: o.notAvailableDuration,
        detectInterval: o.detectInterval,
        detectTimeout: o.detectTimeout,
      });
    case 'adaptive':
      return new AdaptiveFaultStrategy(host, {
        probeInterval: o.detectInterval,
        probeTimeout: o.detectTimeout,
        minShare: o.minBrokerShare,
      });
  }
}

export * from './latency-fault-tolerance.js';
export { AdaptiveFaultStrategy } from './adaptive.js';
export { Java49FaultStrategy } from './java-4.9.js';
export { Java5FaultStrategy } from './java-5.js';
