/**
 * The demo's consumer group: two members (`consumer-process.ts`, one process each) consume the
 * demo topic while the producer runs through the fault schedule. Member 1 is SIGKILLed at 30 % of
 * the run and started again at 50 %. At the end every acknowledged message must have been
 * consumed; duplicates are counted and each is given its cause.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ConsumerProcessArgs } from './consumer-process.js';
import type { DuplicateCause, VerificationResult } from './result.js';

const ENTRY = fileURLToPath(new URL('./consumer-process.js', import.meta.url));

/** When member 1 is killed and restarted, as shares of the run. */
export const CONSUMER_KILL_AT = 0.3;
export const CONSUMER_RESTART_AT = 0.5;

export interface Delivery {
  member: number;
  /** Which start of that member (0 = first; a restart is a new incarnation). */
  incarnation: number;
  queue: string;
  reconsumeTimes: number;
}

interface Member {
  child: ChildProcessByStdio<null, Readable, Readable>;
  incarnation: number;
  exited: Promise<void>;
  /** Set when the demo SIGKILLed or stopped this incarnation: its exit is expected. */
  leaving: boolean;
}

export interface AckedMessage {
  readonly msgId: string;
}

export class DemoConsumerGroup {
  private readonly members: (Member | undefined)[] = [];
  private readonly incarnations: number[] = [];
  private readonly deliveries = new Map<number, Delivery[]>();
  /** `${member}/${incarnation}` of every SIGKILLed incarnation. */
  private readonly killedIncarnations = new Set<string>();
  private total = 0;
  readonly events: string[] = [];

  constructor(
    private readonly args: Omit<ConsumerProcessArgs, 'instanceName'>,
    private readonly size = 2,
  ) {}

  /** Starts every member and waits until each has started its consumer. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.size }, (_, i) => this.startMember(i)));
  }

  /** Messages reported so far (every delivery, duplicates included). */
  get consumed(): number {
    return this.total;
  }

  /** SIGKILLs member `i`: no offset commit, no goodbye. */
  async kill(i: number): Promise<void> {
    const m = this.members[i];
    if (m === undefined) return;
    m.leaving = true;
    this.killedIncarnations.add(`${i}/${m.incarnation}`);
    m.child.kill('SIGKILL');
    await m.exited;
    this.members[i] = undefined;
    this.events.push(`consumer ${i + 1} killed (SIGKILL) after ${this.total} deliveries`);
  }

  async restart(i: number): Promise<void> {
    if (this.members[i] !== undefined) return;
    await this.startMember(i);
    this.events.push(`consumer ${i + 1} restarted`);
  }

  /** Resolves once every acknowledged message was consumed, or no progress for `idleMs`. */
  async waitForAll(
    acked: ReadonlyMap<number, AckedMessage>,
    idleMs: number,
    signal?: AbortSignal,
  ): Promise<void> {
    let last = -1;
    let lastChange = Date.now();
    while (!signal?.aborted) {
      let missing = 0;
      for (const seq of acked.keys()) if (!this.deliveries.has(seq)) missing++;
      if (missing === 0) return;
      if (this.total !== last) {
        last = this.total;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > idleMs) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Clean shutdown of every member still running (SIGTERM: offsets committed). */
  async stop(): Promise<void> {
    await Promise.all(
      this.members.map(async (m, i) => {
        if (m === undefined) return;
        m.leaving = true;
        m.child.kill('SIGTERM');
        const timer = setTimeout(() => m.child.kill('SIGKILL'), 10_000);
        await m.exited;
        clearTimeout(timer);
        this.members[i] = undefined;
      }),
    );
  }

  /** Compares what the group consumed with what the producer was told. */
  verify(acked: ReadonlyMap<number, AckedMessage>, failedSeqs: ReadonlySet<number>): VerificationResult {
    const lostMsgIds: string[] = [];
    let lost = 0;
    for (const [seq, ack] of acked) {
      if (this.deliveries.has(seq)) continue;
      lost++;
      if (lostMsgIds.length < 100) lostMsgIds.push(ack.msgId);
    }
    const causes: Record<DuplicateCause, number> = {
      'producer retry stored it twice': 0,
      'in flight or uncommitted when a consumer was killed': 0,
      'consumer retry (handler failed)': 0,
      'a queue moved to the other member before its offset was committed (rebalance)': 0,
      'redelivered to the same member (broker restart or offset not yet persisted)': 0,
    };
    let duplicates = 0;
    let storedButFailed = 0;
    for (const [seq, list] of this.deliveries) {
      if (failedSeqs.has(seq)) storedButFailed++;
      if (list.length < 2) continue;
      duplicates += list.length - 1;
      causes[duplicateCause(list, this.killedIncarnations)] += list.length - 1;
    }
    return {
      consumed: this.total,
      distinct: this.deliveries.size,
      lost,
      lostMsgIds,
      duplicates,
      storedButFailed,
      misplaced: 0,
      duplicateCauses: causes,
    };
  }

  private startMember(i: number): Promise<void> {
    const incarnation = this.incarnations[i] ?? 0;
    this.incarnations[i] = incarnation + 1;
    const args: ConsumerProcessArgs = {
      ...this.args,
      instanceName: `demo-consumer-${i + 1}-${incarnation}`,
    };
    const child = spawn(process.execPath, [ENTRY, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const member: Member = { child, incarnation, exited, leaving: false };
    this.members[i] = member;
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'ready') {
          ready = true;
          resolve();
          return;
        }
        const [seq, broker, queueId, reconsume] = line.split(' ');
        const d: Delivery = {
          member: i,
          incarnation,
          queue: `${broker}/${queueId}`,
          reconsumeTimes: Number(reconsume),
        };
        const n = Number(seq);
        const list = this.deliveries.get(n);
        if (list === undefined) this.deliveries.set(n, [d]);
        else list.push(d);
        this.total++;
      });
      void exited.then(() => {
        if (!ready) reject(new Error(`demo consumer ${i + 1} exited before it started: ${stderr}`));
        else if (!member.leaving)
          this.events.push(`consumer ${i + 1} exited unexpectedly: ${stderr.split('\n')[0] ?? ''}`);
      });
    });
  }
}

/**
 * Why one message was delivered more than once, from its deliveries in order: from two queues,
 * the producer stored it twice; with reconsumeTimes > 0, a handler failed; first delivered by an
 * incarnation that was later SIGKILLed, its offset was not committed; by two members, its queue
 * moved; else the same member got it again (a broker restart lost the committed offset).
 */
export function duplicateCause(list: readonly Delivery[], killed: ReadonlySet<string>): DuplicateCause {
  if (new Set(list.map((d) => d.queue)).size > 1) return 'producer retry stored it twice';
  if (list.some((d) => d.reconsumeTimes > 0)) return 'consumer retry (handler failed)';
  const first = list[0]!;
  if (killed.has(`${first.member}/${first.incarnation}`))
    return 'in flight or uncommitted when a consumer was killed';
  return new Set(list.map((d) => `${d.member}/${d.incarnation}`)).size > 1
    ? 'a queue moved to the other member before its offset was committed (rebalance)'
    : 'redelivered to the same member (broker restart or offset not yet persisted)';
}
