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
import { emptyCauseCounts, explainDuplicates, type Delivery } from './duplicates.js';
import type { VerificationResult } from './result.js';

const ENTRY = fileURLToPath(new URL('./consumer-process.js', import.meta.url));

/** When member 1 is killed and restarted, as shares of the run. */
export const CONSUMER_KILL_AT = 0.3;
export const CONSUMER_RESTART_AT = 0.5;

interface Member {
  child: ChildProcessByStdio<null, Readable, Readable>;
  incarnation: number;
  exited: Promise<void>;
  /** Set when the demo SIGKILLed or stopped this incarnation: its exit is expected. */
  leaving: boolean;
}

/** A delivery as the member process reported it: with the body's digest (payload.ts). */
export interface ReportedDelivery extends Delivery {
  queueOffset: number;
  digest: string;
}

export interface ConsumerGroupOptions {
  /** Names the members in events and instance names. @default 'consumer' */
  name?: string;
  /** Called on every delivery as it is reported (the chaos run's lag timeline). */
  onDelivery?: (seq: number, delivery: ReportedDelivery) => void;
}

export interface AckedMessage {
  readonly msgId: string;
}

export class DemoConsumerGroup {
  private readonly members: (Member | undefined)[] = [];
  private readonly incarnations: number[] = [];
  private readonly deliveries = new Map<number, ReportedDelivery[]>();
  /** `${member}/${incarnation}` of every SIGKILLed incarnation. */
  readonly killedIncarnations = new Set<string>();
  private total = 0;
  readonly events: string[] = [];
  /** Members that exited without being killed or stopped (also in `events`). */
  readonly crashes: string[] = [];

  constructor(
    private readonly args: Omit<ConsumerProcessArgs, 'instanceName'>,
    private readonly size = 2,
    private readonly options: ConsumerGroupOptions = {},
  ) {}

  /** Every delivery so far by message seq, in arrival order. */
  get deliveriesBySeq(): ReadonlyMap<number, readonly ReportedDelivery[]> {
    return this.deliveries;
  }

  /** PID of each member by index, undefined while it is down (for memory sampling). */
  pids(): Array<number | undefined> {
    return Array.from({ length: this.size }, (_, i) => this.members[i]?.child.pid);
  }

  private get label(): string {
    return this.options.name ?? 'consumer';
  }

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
    this.events.push(`${this.label} ${i + 1} killed (SIGKILL) after ${this.total} deliveries`);
  }

  async restart(i: number): Promise<void> {
    if (this.members[i] !== undefined) return;
    await this.startMember(i);
    this.events.push(`${this.label} ${i + 1} restarted`);
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
    const causes = emptyCauseCounts();
    let duplicates = 0;
    let storedButFailed = 0;
    for (const [seq, list] of this.deliveries) {
      if (failedSeqs.has(seq)) storedButFailed++;
      if (list.length < 2) continue;
      duplicates += list.length - 1;
      for (const cause of explainDuplicates(list, { killed: this.killedIncarnations })) causes[cause]++;
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
      instanceName: `demo-${this.label}-${i + 1}-${incarnation}`,
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
        const [seq, broker, queueId, reconsume, queueOffset, digest] = line.split(' ');
        const d: ReportedDelivery = {
          member: i,
          incarnation,
          queue: `${broker}/${queueId}`,
          reconsumeTimes: Number(reconsume),
          queueOffset: Number(queueOffset),
          digest: digest ?? '',
        };
        const n = Number(seq);
        const list = this.deliveries.get(n);
        if (list === undefined) this.deliveries.set(n, [d]);
        else list.push(d);
        this.total++;
        this.options.onDelivery?.(n, d);
      });
      void exited.then(() => {
        if (!ready) reject(new Error(`${this.label} ${i + 1} exited before it started: ${stderr}`));
        else if (!member.leaving) {
          const what = `${this.label} ${i + 1} exited unexpectedly (exit ${child.exitCode ?? child.signalCode}): ${stderr.split('\n')[0] ?? ''}`;
          this.events.push(what);
          this.crashes.push(what);
        }
      });
    });
  }
}
