/**
 * The embedded 2-broker cluster of bench/producer.ts's `cluster` mode in a child process, started
 * with a broker's young generation (BROKER_NODE_FLAGS, server/broker-heap.ts), as
 * `rocketmq-ts cluster` and `rocketmq-ts broker` run their brokers. The child posts
 * `{ namesrvAddr }` when ready and answers `{ mark }`, `{ report }` and `{ stop }` messages.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BROKER_NODE_FLAGS } from '../src/server/broker-heap.js';

const PRODUCER_BENCH = fileURLToPath(new URL('./producer.js', import.meta.url));

export function forkClusterChild(topic: string, extraNodeFlags: readonly string[] = []): ChildProcess {
  return fork(PRODUCER_BENCH, ['cluster', '--topic', topic], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: [...BROKER_NODE_FLAGS, ...extraNodeFlags],
  });
}
