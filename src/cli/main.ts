#!/usr/bin/env node
import { RocketMQError } from '../errors.js';
import type { CliCommand } from './command.js';
import { commands } from './commands/index.js';

function usage(): string {
  const lines = ['Usage: rocketmq-ts <command> [options]', '', 'Commands:'];
  const width = Math.max(...commands.map((c) => c.path.join(' ').length), 8);
  for (const c of commands) lines.push(`  ${c.path.join(' ').padEnd(width)}  ${c.summary}`);
  lines.push('', "Run 'rocketmq-ts <command> --help' for a command's options.");
  return lines.join('\n');
}

function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | undefined {
  let best: CliCommand | undefined;
  for (const c of commands) {
    if (c.path.every((word, i) => argv[i] === word) && (!best || c.path.length > best.path.length)) best = c;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : undefined;
}

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(usage());
    return argv.length === 0 ? 1 : 0;
  }
  const found = findCommand(argv);
  if (!found) {
    console.error(`unknown command: ${argv.join(' ')}\n`);
    console.error(usage());
    return 2;
  }
  if (found.rest.includes('--help') || found.rest.includes('-h')) {
    console.log(found.command.help);
    return 0;
  }
  try {
    return await found.command.run(found.rest);
  } catch (err) {
    if (err instanceof RocketMQError) console.error(`error [${err.code}]: ${err.message}`);
    else console.error(err);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  },
);
