/**
 * Where a SimpleConsumer's POPs go (docs/consumers.md §3): every subscribed topic on every broker
 * with readable queues of it, the one with the fewest POPs out first, and whether the group pops
 * orderly on each broker.
 */
import { Deadline } from '../../client/deadline.js';
import type { ClientInstance } from '../../client/client-instance.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { Logger } from '../../observability/logger.js';
import { consumerClientOf } from '../core/client-port.js';
import { groupConsumesOrderly } from '../core/broker-queries.js';
import type { ResolvedSimpleConsumerOptions } from './options.js';

/** One place `receive` can pop from: a subscribed topic on one broker. */
export interface PopTarget {
  userTopic: string;
  wireTopic: string;
  expression: string;
  brokerName: string;
}

/** What the targets need of their consumer. */
export interface PopTargetsPort {
  readonly options: Readonly<ResolvedSimpleConsumerOptions>;
  readonly wireGroup: string;
  readonly logger: Logger;
  /** The running instance; IllegalStateError when the consumer is not running. */
  running(): ClientInstance;
}

/** One key per target: the in-flight count is kept per topic and broker. */
function keyOf(target: PopTarget): string {
  return `${target.wireTopic}@${target.brokerName}`;
}

export class PopTargets {
  private next = 0;
  /** POPs sent and not yet answered, per target (keyOf). */
  private readonly inFlight = new Map<string, number>();
  /** Per broker: does the group pop orderly there (`fifo` unset: the group's config decides). */
  private readonly orderly = new Map<string, boolean>();

  constructor(private readonly port: PopTargetsPort) {}

  /** Topic × broker pairs with readable queues, sorted, from the current routes. */
  async all(): Promise<PopTarget[]> {
    const { options: o } = this.port;
    const instance = this.port.running();
    const out: PopTarget[] = [];
    for (const [userTopic, expression] of Object.entries(o.subscriptions)) {
      const wireTopic = wrapNamespace(o.namespace, userTopic);
      const queues = await instance.routes.subscribeQueues(wireTopic, Deadline.after(o.mqClientApiTimeout));
      for (const brokerName of [...new Set(queues.map((q) => q.brokerName))].sort())
        out.push({ userTopic, wireTopic, expression, brokerName });
    }
    return out;
  }

  /**
   * The target of the next POP: the one with the fewest POPs out, ties taken in turn; undefined
   * when there is none. Plain round robin convoyed: a drained broker long-polls each POP for
   * `awaitDuration`, so in a few turns every POP in flight sat there while the other broker's
   * last messages waited (the POP drain ran at a quarter of its rate). The caller reports the
   * answer with `settled`.
   */
  async take(): Promise<PopTarget | undefined> {
    const targets = await this.all();
    if (targets.length === 0) return undefined;
    const start = this.next++;
    let best: PopTarget | undefined;
    let fewest = Infinity;
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(start + i) % targets.length];
      if (target === undefined) continue;
      const out = this.inFlight.get(keyOf(target)) ?? 0;
      if (out < fewest) {
        fewest = out;
        best = target;
      }
    }
    if (best !== undefined) this.inFlight.set(keyOf(best), fewest + 1);
    return best;
  }

  /** The POP sent to `target` (from `take`) was answered or failed. */
  settled(target: PopTarget): void {
    const key = keyOf(target);
    const out = (this.inFlight.get(key) ?? 0) - 1;
    if (out > 0) this.inFlight.set(key, out);
    else this.inFlight.delete(key);
  }

  /**
   * Whether POPs of `brokerName` are orderly: `fifo` when set, else the group's
   * `consumeMessageOrderly` there (GET_SUBSCRIPTIONGROUP_CONFIG, as the 5.x Proxy decides; false
   * when the broker cannot say), asked once per broker.
   */
  async orderOf(brokerName: string): Promise<boolean> {
    const o = this.port.options;
    if (o.fifo !== undefined) return o.fifo;
    const known = this.orderly.get(brokerName);
    if (known !== undefined) return known;
    const said = await groupConsumesOrderly(
      consumerClientOf(this.port.running(), o.mqClientApiTimeout),
      brokerName,
      this.port.wireGroup,
      o.mqClientApiTimeout,
    );
    if (said === undefined)
      this.port.logger.info('broker does not tell whether the group is orderly: POP unordered', {
        broker: brokerName,
        group: o.consumerGroup,
      });
    this.orderly.set(brokerName, said ?? false);
    return said ?? false;
  }

  /** Forgets what the brokers said (a stop: the next start asks again). */
  clear(): void {
    this.orderly.clear();
  }
}
