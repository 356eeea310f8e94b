/**
 * Module resolve hook for running examples/ from build/: an example imports the package by name
 * (`rocketmq-ts`, `rocketmq-ts/server`), as an application does, and this maps each name to the
 * compiled source of the entry point package.json exports under it (`./dist/x/index.js` →
 * `build/src/x/index.js`), so examples run against this checkout without a `dist/` build.
 * Registered by register.ts with `node --import`.
 */
import { readFileSync } from 'node:fs';

/** Repository root: this file runs as build/test/examples/resolve-hook.js. */
const ROOT = new URL('../../../', import.meta.url);
const PACKAGE = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as {
  name: string;
  exports: Record<string, { import?: { default?: string } } | string>;
};

/** `rocketmq-ts/server` → the file URL of build/src/server/index.js; undefined for any other name. */
export function entryPointUrl(specifier: string): string | undefined {
  if (specifier !== PACKAGE.name && !specifier.startsWith(`${PACKAGE.name}/`)) return undefined;
  const subpath = `.${specifier.slice(PACKAGE.name.length)}`;
  const entry = PACKAGE.exports[subpath];
  const target = typeof entry === 'string' ? entry : entry?.import?.default;
  if (target === undefined || !target.startsWith('./dist/')) return undefined;
  return new URL(`build/src/${target.slice('./dist/'.length)}`, ROOT).href;
}

interface ResolveResult {
  url: string;
  shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context: unknown) => Promise<ResolveResult>;

export async function resolve(
  specifier: string,
  context: unknown,
  next: NextResolve,
): Promise<ResolveResult> {
  const url = entryPointUrl(specifier);
  return url === undefined ? next(specifier, context) : { url, shortCircuit: true };
}
