/**
 * Packages most applications never need, loaded on first use so that importing rocketmq-ts loads
 * none of them: the LZ4 and ZSTD codecs (lz4js, fzstd; ZLIB, Node's own, is the default) and the
 * optional peer `@opentelemetry/api`. Reading a body must stay synchronous (a pulled message is
 * decoded where it is read) and so must a client's constructor, so they are `require`d, not
 * `import()`ed.
 *
 * This file is compiled twice: to CommonJS, where the module's own `require` exists, and to ESM,
 * where it does not and `import.meta` (which CommonJS cannot even parse) would be the usual way
 * to make one. So the ESM side builds its `require` from this file's path read off a stack frame.
 */
import { createRequire } from 'node:module';

let load: NodeJS.Require | undefined;

/** This module's file (a file: URL in ESM), from the top frame of a stack trace. */
function ownFile(): string {
  const savedPrepare = Error.prepareStackTrace;
  const savedLimit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 1;
    Error.prepareStackTrace = (_error, frames) => frames;
    const frames = new Error().stack as unknown as NodeJS.CallSite[];
    const file = frames[0]?.getFileName();
    if (file === undefined || file === null) throw new Error('cannot locate the rocketmq-ts module file');
    return file;
  } finally {
    Error.prepareStackTrace = savedPrepare;
    Error.stackTraceLimit = savedLimit;
  }
}

/** `require(name)` resolved from this package, loaded once by Node's module cache. */
export function requireDependency<T>(name: string): T {
  load ??= typeof require === 'function' ? require : createRequire(ownFile());
  return load(name) as T;
}
