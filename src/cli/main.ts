#!/usr/bin/env node
import { inspect } from 'node:util';
import { NameServerUnreachableError, NotANameServerError } from '../errors.js';
import { ConnectError, InvalidArgumentError, RocketMQError } from '../errors.js';
import { wireDebug } from '../observability/logger.js';
import { inBrokerThread, logBrokerThread, runInBrokerThread } from './broker-thread.js';
import type { CliCommand } from './command.js';
import { commands } from './commands/index.js';
import { closest, editDistance } from './suggest.js';

const PROGRAM = 'rocketmq-ts';
/** Exit code of every usage error: unknown command or option, bad or missing flag value. */
const EXIT_USAGE = 2;

function commandList(list: readonly CliCommand[]): string[] {
  const width = Math.max(...list.map((c) => c.path.join(' ').length), 8);
  return list.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
}

function usage(): string {
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...commandList(commands),
    '',
    'Every command also takes:',
    '  -h, --help   print its options',
    '  --verbose    log to stderr and print stack traces of errors (as does NODE_DEBUG=rocketmq)',
    '',
    `Run '${PROGRAM} <command> --help' for a command's options.`,
  ].join('\n');
}

/** Help of a word that only groups commands, e.g. `topic`. */
function groupHelp(group: string, members: readonly CliCommand[]): string {
  return [
    `Usage: ${PROGRAM} ${group} <sub-command> [options]`,
    '',
    'Sub-commands:',
    ...commandList(members),
    '',
    `Run '${PROGRAM} ${group} <sub-command> --help' for its options.`,
  ].join('\n');
}

/** The command whose whole path starts `argv` (the longest one). */
function findCommand(argv: readonly string[]): CliCommand | undefined {
  let best: CliCommand | undefined;
  for (const c of commands) {
    if (c.path.every((word, i) => argv[i] === word) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best;
}

/** The command path nearest to what was typed, comparing as many words as each path has. */
function suggestCommand(argv: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of commands) {
    const path = c.path.join(' ');
    const typed = argv.slice(0, c.path.length).join(' ');
    if (closest(typed, [path]) === undefined) continue;
    const d = editDistance(typed, path);
    if (d < bestDistance) {
      best = path;
      bestDistance = d;
    }
  }
  return best;
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h';

function fail(line: string, hint?: string): number {
  console.error(`error: ${line}`);
  if (hint) console.error(hint);
  return EXIT_USAGE;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) {
    return fail(
      'no command given',
      `Commands: ${commands.map((c) => c.path.join(' ')).join(', ')}; '${PROGRAM} --help' describes them.`,
    );
  }
  const first = argv[0]!;
  if (isHelp(first) || first === 'help') {
    if (argv.length === 1) {
      console.log(usage());
      return 0;
    }
    // `help topic create` is `topic create --help`
    return main([...argv.slice(1), '--help']);
  }
  const command = findCommand(argv);
  if (!command) return unknownCommand(argv);
  const rest = argv.slice(command.path.length);
  if (rest.some(isHelp)) {
    console.log(command.help);
    return 0;
  }
  try {
    if (command.hostsBrokers) {
      if (!inBrokerThread()) return await runInBrokerThread(argv);
      if (wantsDetail(argv)) logBrokerThread();
    }
    return await command.run(rest);
  } catch (err) {
    return report(err, command, wantsDetail(argv));
  }
}

/** No command matched: a group word without its sub-command (`topic`, `topic --help`) or a typo. */
function unknownCommand(argv: readonly string[]): number {
  const first = argv[0]!;
  const members = commands.filter((c) => c.path.length > 1 && c.path[0] === first);
  const second = argv[1];
  if (members.length > 0 && (second === undefined || second.startsWith('-'))) {
    if (argv.slice(1).some(isHelp)) {
      console.log(groupHelp(first, members));
      return 0;
    }
    return fail(
      `'${first}' needs a sub-command: ${members.map((c) => c.path.slice(1).join(' ')).join(', ')}`,
      `Run '${PROGRAM} ${first} --help' for the list.`,
    );
  }
  const guess = suggestCommand(argv);
  const typed = argv.slice(0, guess?.split(' ').length ?? (members.length > 0 ? 2 : 1)).join(' ');
  return fail(
    `unknown command '${typed}'${guess ? `; did you mean '${guess}'?` : ''}`,
    `Run '${PROGRAM} --help' for the list of commands.`,
  );
}

/** Stack traces only on request: `--verbose` anywhere, or NODE_DEBUG naming rocketmq. */
function wantsDetail(argv: readonly string[]): boolean {
  return argv.includes('--verbose') || wireDebug.enabled;
}

/** One `error:` line (and at most one hint line) on stderr; returns the exit code. */
function report(err: unknown, command: CliCommand | undefined, verbose: boolean): number {
  const message = firstLine(err instanceof Error ? err.message : String(err));
  let code = 1;
  let hint: string | undefined;
  if (err instanceof InvalidArgumentError) {
    console.error(`error: ${message}`);
    code = EXIT_USAGE;
    if (command) hint = `Run '${PROGRAM} ${command.path.join(' ')} --help' for its options.`;
  } else if (err instanceof RocketMQError) {
    console.error(`error [${err.code}]: ${message}`);
    hint = hintFor(err);
  } else {
    const sysCode = (err as { code?: unknown } | undefined)?.code;
    console.error(`error${typeof sysCode === 'string' ? ` [${sysCode}]` : ''}: ${message}`);
    if (!verbose) hint = 'Run again with --verbose for the stack trace.';
  }
  if (verbose) console.error(inspect(err, { depth: 4 }));
  else if (hint) console.error(hint);
  return code;
}

/** The likely fix of a failure, from the error or its causes (a route error wraps the NameServer's). */
function hintFor(err: RocketMQError): string | undefined {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof NameServerUnreachableError)
      return `Is a NameServer listening at ${e.addresses.join(';')}? '${PROGRAM} cluster' starts one (and brokers).`;
    if (e instanceof NotANameServerError)
      return `Give the NameServer's address (port 9876 by default; '${PROGRAM} cluster' prints it), not a broker's.`;
    if (e instanceof ConnectError)
      return `Is a NameServer or broker listening at ${e.address}? '${PROGRAM} cluster' starts both.`;
  }
  return undefined;
}

function firstLine(s: string): string {
  return s.split('\n', 1)[0]!.trim();
}

/** Errors outside any command's await (e.g. a server's socket after start): one line too. */
function onStray(err: unknown): void {
  process.exit(report(err, undefined, wantsDetail(process.argv)));
}
process.on('uncaughtException', onStray);
process.on('unhandledRejection', onStray);

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = report(err, undefined, wantsDetail(process.argv));
  },
);
