/**
 * A pluggable logger. Library classes take a `Logger` option and default to `silentLogger`,
 * so nothing is printed unless the application asks for it.
 */
import { debuglog } from 'node:util';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, meta?: object): void;
  info(msg: string, meta?: object): void;
  warn(msg: string, meta?: object): void;
  error(msg: string, meta?: object): void;
}

function noop(): void {}

/** Drops everything. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

const LEVEL_RANK: Readonly<Record<LogLevel, number>> = Object.freeze({
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
});

function formatMeta(meta: object | undefined): string {
  if (meta === undefined) return '';
  try {
    return (
      ' ' + JSON.stringify(meta, (_key, value: unknown) => (value instanceof Error ? value.message : value))
    );
  } catch {
    return ' [unserializable meta]';
  }
}

/**
 * Writes `time LEVEL namespace: message {meta}` lines to stderr for `level` and above.
 * @param level lowest level printed. @default 'info'
 */
export function consoleLogger(namespace: string, level: LogLevel = 'info'): Logger {
  const min = LEVEL_RANK[level];
  const make =
    (lvl: LogLevel) =>
    (msg: string, meta?: object): void => {
      if (LEVEL_RANK[lvl] < min) return;
      process.stderr.write(
        `${new Date().toISOString()} ${lvl.toUpperCase()} ${namespace}: ${msg}${formatMeta(meta)}\n`,
      );
    };
  return { debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}

/**
 * `NODE_DEBUG=rocketmq` switch (util.debuglog). `enabled` is read on each call so the hot
 * path costs one property read when the switch is off.
 */
export const wireDebug = debuglog('rocketmq');

/** Hex dump of a frame for `NODE_DEBUG=rocketmq`, capped so a 16 MiB body does not flood the log. */
export function hexDump(chunks: ReadonlyArray<Uint8Array>, limit = 512): string {
  let out = '';
  let total = 0;
  for (const c of chunks) {
    total += c.byteLength;
    if (out.length < limit * 2) {
      out += Buffer.from(c.buffer, c.byteOffset, c.byteLength).toString(
        'hex',
        0,
        Math.min(c.byteLength, limit - out.length / 2),
      );
    }
  }
  return total > limit ? `${out}... (${total} bytes)` : out;
}
