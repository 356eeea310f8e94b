/**
 * pause() / resume() of both pulling consumers, one argument shape (docs/events.md has the
 * events; this is the other half of the common surface): a list of topics (user names) and/or
 * MessageQueues, or nothing for everything. Java: the push consumer's `suspend()` / `resume()`
 * pause everything, the lite pull consumer's `pause(Collection<MessageQueue>)` /
 * `resume(Collection<MessageQueue>)` take queues; both of ours take either.
 *
 * `resume()` without arguments lifts every pause; `resume(targets)` lifts the pauses set on
 * exactly those topics and queues (a queue stays paused while its topic or everything is).
 */
import { InvalidArgumentError } from '../../errors.js';
import { wrapNamespace } from '../../client/namespace.js';
import type { MessageQueue } from '../../client/route.js';
import { mqKey } from '../../protocol/body/message-queue-map.js';
import { checkTopic } from '../../protocol/validation.js';
import { wireQueue } from './queue-names.js';

/** A topic (as the application names it) or one of its queues. */
export type PauseTarget = string | MessageQueue;

export class PausedQueues {
  private all = false;
  /** Wire topic names. */
  private readonly topics = new Set<string>();
  /** mqKey of wire queues. */
  private readonly queues = new Set<string>();

  constructor(private readonly namespace: string | undefined) {}

  /** True while everything is paused (`pause()` without arguments). */
  get everything(): boolean {
    return this.all;
  }

  /** Whether pulls of `mq` (a wire queue) wait. */
  isPaused(mq: MessageQueue): boolean {
    if (this.all) return true;
    if (this.topics.size > 0 && this.topics.has(mq.topic)) return true;
    return this.queues.size > 0 && this.queues.has(mqKey(mq));
  }

  pause(targets?: readonly PauseTarget[]): void {
    if (targets === undefined) {
      this.all = true;
      return;
    }
    const { topics, queues } = this.parse(targets);
    for (const t of topics) this.topics.add(t);
    for (const q of queues) this.queues.add(q);
  }

  resume(targets?: readonly PauseTarget[]): void {
    if (targets === undefined) {
      this.all = false;
      this.topics.clear();
      this.queues.clear();
      return;
    }
    const { topics, queues } = this.parse(targets);
    for (const t of topics) this.topics.delete(t);
    for (const q of queues) this.queues.delete(q);
  }

  /** Checks every target before anything changes, so bad input leaves the pauses as they were. */
  private parse(targets: readonly PauseTarget[]): { topics: string[]; queues: string[] } {
    if (!Array.isArray(targets))
      throw new InvalidArgumentError('targets', 'must be an array of topics and/or message queues');
    const topics: string[] = [];
    const queues: string[] = [];
    targets.forEach((t: PauseTarget, i) => {
      if (typeof t === 'string') {
        const problem = checkTopic(t, `targets[${i}]`);
        if (problem !== undefined) throw new InvalidArgumentError(`targets[${i}]`, problem);
        topics.push(wrapNamespace(this.namespace, t));
      } else queues.push(mqKey(wireQueue(t, this.namespace, `targets[${i}]`)));
    });
    return { topics, queues };
  }
}
