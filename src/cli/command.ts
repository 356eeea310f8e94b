import type { FlagSpecs } from './flags.js';

/**
 * The shape of one CLI command. Each command lives in its own file under `commands/` and is
 * listed in `commands/index.ts`; `main.ts` only dispatches and reports errors.
 */
export interface CliCommand {
  /** Words that select the command, e.g. `['topic', 'create']`. */
  readonly path: readonly string[];
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text. */
  readonly help: string;
  /**
   * The flags `run` accepts besides GLOBAL_FLAGS (`--help`, `--verbose`); the help text and the
   * CLI reference in docs/admin-cli.md §3 are tested against this list.
   */
  readonly flags: FlagSpecs;
  /**
   * The command runs brokers until a signal: main.ts runs it in a worker thread with a broker's
   * young generation (cli/broker-thread.ts).
   */
  readonly hostsBrokers?: true;
  /** Runs the command with the arguments after its path; resolves to the exit code. */
  run(argv: string[]): Promise<number>;
}
