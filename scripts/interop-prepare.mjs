// Builds the Java interop harness (interop/) when it is missing or older than its sources:
// the driver jar plus each RocketMQ version's classpath in interop/target/<version>/lib, and the
// OpenTelemetry Java agent in interop/target/otel.
// Fails loudly when Java or Maven is missing. `--force` rebuilds unconditionally.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { newestMtime } from './newest-mtime.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const interop = join(root, 'interop');
/** Module directory → RocketMQ version; keep in step with interop/v4|v5/pom.xml. */
export const INTEROP_VERSIONS = { v4: '4.9.7', v5: '5.5.0' };
/** The OpenTelemetry Java agent interop/pom.xml copies (interop-test/otel-agent.ts attaches it). */
export const OTEL_AGENT_DIR = join(interop, 'target', 'otel');

/** Stamp files written after a complete build: one per version's classpath, one for the agent. */
function stamps() {
  return [
    ...Object.values(INTEROP_VERSIONS).map((v) => join(interop, 'target', v, 'lib', '.complete')),
    join(OTEL_AGENT_DIR, '.complete'),
  ];
}

function findOnPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

export function findJava() {
  const home = process.env.JAVA_HOME;
  const candidate = home ? join(home, 'bin', 'java') : findOnPath('java');
  if (!candidate || !existsSync(candidate)) {
    throw new Error(
      'interop: no Java found (set JAVA_HOME or put java 17+ on PATH; apt-get install openjdk-17-jdk-headless)',
    );
  }
  return candidate;
}

function upToDate() {
  const sources = Math.max(
    newestMtime(join(interop, 'pom.xml')),
    newestMtime(join(interop, 'v4', 'pom.xml')),
    newestMtime(join(interop, 'v5', 'pom.xml')),
    newestMtime(join(interop, 'src')),
  );
  return stamps().every((stamp) => existsSync(stamp) && statSync(stamp).mtimeMs >= sources);
}

export function prepare({ force = false, quiet = false } = {}) {
  const java = findJava();
  const version = spawnSync(java, ['-version'], { encoding: 'utf8' });
  const match = /version "(\d+)/.exec(`${version.stderr}${version.stdout}`);
  if (version.status !== 0 || !match || Number(match[1]) < 11) {
    throw new Error(`interop: ${java} -version failed or is older than 11:\n${version.stderr}`);
  }
  if (!force && upToDate()) return;
  const mvn = findOnPath('mvn');
  if (!mvn) throw new Error('interop: Maven (mvn) not found on PATH; apt-get install maven');
  const started = Date.now();
  if (!quiet)
    console.error('interop: building the Java harness with Maven (first run downloads RocketMQ jars)...');
  const result = spawnSync(mvn, ['-q', '-B', 'package'], {
    cwd: interop,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0)
    throw new Error(`interop: mvn package failed (exit ${result.status ?? result.signal})`);
  for (const stamp of stamps()) writeFileSync(stamp, `${new Date().toISOString()}\n`);
  if (!quiet) console.error(`interop: Maven build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    prepare({ force: process.argv.includes('--force') });
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}
