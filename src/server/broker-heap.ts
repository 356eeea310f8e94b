/**
 * How big V8's young generation should be in a process (or worker thread) that hosts embedded
 * brokers under load: `rocketmq-ts broker` and `rocketmq-ts cluster` run theirs in a worker with
 * {@link BROKER_THREAD_RESOURCE_LIMITS}; a process of your own takes {@link BROKER_NODE_FLAGS}
 * (`node --max-semi-space-size=4 app.js`, or in NODE_OPTIONS).
 *
 * Why: under sustained load V8 grows each semi-space to its 64-bit maximum, 16 MiB. A broker keeps
 * only ~10 MiB live, so after a mark-compact V8 puts the old generation's limit ~24 MiB above
 * that, and whenever that slack is smaller than the new space V8 starts incremental marking at
 * once: with 16 MiB semi-spaces that meant a full mark-compact every ~70 ms while batches arrived
 * (`--trace-gc`, 500k msgs/s). With 4 MiB semi-spaces scavenges come 4× as often but cost the
 * same each (a scavenge copies survivors; it does not sweep the space) and the full collections
 * stop. The broker's CPU per message fell for both kinds of traffic (bench/auto-batch.ts, same
 * machine, same minute): see the figures in docs/architecture.md. Java's runbroker.sh sizes the
 * JVM's young generation (`-Xmn`) for its broker for the same kind of reason.
 */
export const BROKER_SEMI_SPACE_MB = 4;

/** Node command-line flags that give a whole process a broker's young generation. */
export const BROKER_NODE_FLAGS: readonly string[] = Object.freeze([
  `--max-semi-space-size=${BROKER_SEMI_SPACE_MB}`,
]);

/**
 * `resourceLimits` for a worker thread that hosts brokers. V8 sizes a young generation as three
 * semi-spaces (two plus the new large-object space), so this is the same heap as
 * {@link BROKER_NODE_FLAGS}.
 */
export const BROKER_THREAD_RESOURCE_LIMITS: Readonly<{ maxYoungGenerationSizeMb: number }> = Object.freeze({
  maxYoungGenerationSizeMb: 3 * BROKER_SEMI_SPACE_MB,
});
