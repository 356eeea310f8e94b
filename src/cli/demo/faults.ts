/**
 * Injecting the demo's faults: in-process on an EmbeddedCluster, or remotely with request code
 * 9901 on brokers that allow it (a real Apache broker answers REQUEST_CODE_NOT_SUPPORTED).
 */
import { ResponseCode } from '../../protocol/codes.js';
import type { ConnectionPool } from '../../remoting/pool.js';
import type { EmbeddedCluster } from '../../server/cluster.js';
import { FaultInjectionDisabledError, setRemoteFault } from '../../server/broker/fault-control.js';
import type { FaultSpec } from '../../server/broker/faults.js';
import type { FaultKind } from './schedule.js';

/** Added latency of the `slow` fault. */
export const SLOW_LATENCY_MS = 500;

export interface FaultController {
  /** Starts `fault` on `broker`. `durationMs` bounds faults that can only end by themselves. */
  inject(broker: string, fault: FaultKind, durationMs: number): Promise<void>;
  /** Ends `fault` on `broker` (restarts a killed broker). */
  clear(broker: string, fault: FaultKind): Promise<void>;
}

/** The broker-side fault spec for the faults that are not a process kill. */
export function specFor(fault: Exclude<FaultKind, 'killed'>): FaultSpec {
  switch (fault) {
    case 'slow':
      return { latencyMs: SLOW_LATENCY_MS };
    case 'busy':
      return { errorCode: ResponseCode.SYSTEM_BUSY };
    case 'hung':
      return { hang: true };
  }
}

export class EmbeddedFaultController implements FaultController {
  constructor(private readonly cluster: EmbeddedCluster) {}

  async inject(broker: string, fault: FaultKind): Promise<void> {
    if (fault === 'killed') await this.cluster.stopBroker(broker, { graceful: false });
    else this.cluster.broker(broker).faults.set(specFor(fault));
  }

  async clear(broker: string, fault: FaultKind): Promise<void> {
    if (fault === 'killed') await this.cluster.startBroker(broker);
    else this.cluster.broker(broker).faults.clear();
  }
}

/**
 * Faults over the wire. A kill becomes `refuseConnections` for the fault's duration (the broker
 * lifts it by itself, since nothing can reach it to ask).
 */
export class RemoteFaultController implements FaultController {
  constructor(
    private readonly pool: ConnectionPool,
    private readonly brokerAddrs: ReadonlyMap<string, string>,
    private readonly timeoutMs = 3000,
  ) {}

  /**
   * Whether the broker at `address` accepts fault requests: sends a harmless `clear`. Resolves
   * false on REQUEST_CODE_NOT_SUPPORTED; other failures reject.
   */
  static async probe(pool: ConnectionPool, address: string, timeoutMs = 3000): Promise<boolean> {
    try {
      await setRemoteFault(pool, address, undefined, timeoutMs);
      return true;
    } catch (err) {
      if (err instanceof FaultInjectionDisabledError) return false;
      throw err;
    }
  }

  async inject(broker: string, fault: FaultKind, durationMs: number): Promise<void> {
    const spec: FaultSpec = fault === 'killed' ? { refuseConnections: true, durationMs } : specFor(fault);
    await this.send(broker, spec);
  }

  async clear(broker: string, fault: FaultKind): Promise<void> {
    if (fault === 'killed') return; // expires by itself
    await this.send(broker, undefined);
  }

  /** Sets `spec` on `broker` (undefined clears it). */
  async send(broker: string, spec: FaultSpec | undefined): Promise<void> {
    const address = this.brokerAddrs.get(broker);
    if (!address) throw new Error(`no address known for ${broker}`);
    await setRemoteFault(this.pool, address, spec, this.timeoutMs);
  }
}
