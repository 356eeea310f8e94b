/**
 * The files of a throw-away project that installs the packed tarball: plain CommonJS and ESM
 * scripts, a module-load recorder, and a TypeScript project (`module: nodenext`, package
 * `"type": "commonjs"`) with one CommonJS and one ESM source. Kept as text: they import
 * 'rocketmq-ts' by name, which only resolves inside that project.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Entry points of the package, as an application names them. */
export const ENTRY_POINTS = [
  'rocketmq-ts',
  'rocketmq-ts/protocol',
  'rocketmq-ts/remoting',
  'rocketmq-ts/server',
];

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'package-test-consumer', private: true, type: 'commonjs' }),

  // Prints every module file require() evaluated for the entry point in argv[2].
  'loaded.cjs': `require(process.argv[2]);
console.log(JSON.stringify(Object.keys(require.cache)));
`,

  // ESM has no module cache to read, so a loader hook logs every URL Node loads to LOADED_LOG.
  'record-hooks.mjs': `import { appendFileSync } from 'node:fs';
export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return nextLoad(url, context);
}
`,
  'record.mjs': `import { register } from 'node:module';
register('./record-hooks.mjs', import.meta.url);
`,
  'loaded.mjs': `await import(process.argv[2]);
`,

  // Every entry point's export names, as require() and import() see them.
  'names.cjs': `const entries = ${JSON.stringify(ENTRY_POINTS)};
console.log(JSON.stringify(Object.fromEntries(entries.map((e) => [e, Object.keys(require(e)).sort()]))));
`,
  'names.mjs': `const entries = ${JSON.stringify(ENTRY_POINTS)};
const names = {};
for (const e of entries) names[e] = Object.keys(await import(e)).filter((k) => k !== 'default').sort();
console.log(JSON.stringify(names));
`,

  // LZ4 and ZSTD bodies round-trip through the entry point in argv[2]; prints which of the codec
  // dependencies were loaded before and after (they must wait for the first such body).
  'codecs.cjs': `const deps = () => [...new Set(Object.keys(require.cache).map((f) => (/node_modules[\\\\/](lz4js|fzstd|@bokuweb[\\\\/]zstd-wasm)[\\\\/]/.exec(f) || [])[1]).filter(Boolean))].sort();
const p = require('rocketmq-ts/protocol');
require('rocketmq-ts');
const before = deps();
const body = Buffer.from('{"orderId":1,"status":"PAID"},'.repeat(300));
p.loadCompressor('ZSTD').then(() => {
  const ok = (type) => p.decompressBody(p.compressWith(type, body, 3), p.COMPRESSED_SYSFLAG[type]).equals(body);
  console.log(JSON.stringify({ before, LZ4: ok('LZ4'), ZSTD: ok('ZSTD'), after: deps() }));
});
`,
  'codecs.mjs': `const p = await import('rocketmq-ts/protocol');
const body = Buffer.from('{"orderId":1,"status":"PAID"},'.repeat(300));
await p.loadCompressor('ZSTD');
const ok = (type) => p.decompressBody(p.compressWith(type, body, 3), p.COMPRESSED_SYSFLAG[type]).equals(body);
console.log(JSON.stringify({ LZ4: ok('LZ4'), ZSTD: ok('ZSTD') }));
`,

  'tsconfig.json': '', // written by writeConsumerProject: needs the repository's @types path

  // Compiled to CommonJS (package type commonjs): runs a send on an embedded cluster.
  'app.ts': `import { Producer, PRODUCER_DEFAULTS, InvalidArgumentError, RocketMQError, type SendResult } from 'rocketmq-ts';
import { EmbeddedCluster } from 'rocketmq-ts/server';
import { ResponseCode } from 'rocketmq-ts/protocol';
import { nextOpaque } from 'rocketmq-ts/remoting';

export function typeChecks(): void {
  // @ts-expect-error producerGroup is a string: fails to compile unless the declarations were found
  new Producer({ producerGroup: 42 });
}

async function main(): Promise<void> {
  const cluster = await EmbeddedCluster.start({ brokers: 1 });
  const producer = new Producer({ producerGroup: 'PG', namesrvAddr: cluster.namesrvAddr });
  try {
    await producer.start();
    const result: SendResult = await producer.send({ topic: 'PackageTest', body: 'from CommonJS' });
    let invalid: unknown;
    try {
      new Producer({ namesrvAddr: cluster.namesrvAddr, sendMsgTimeout: -1 });
    } catch (err) {
      invalid = err;
    }
    console.log(
      JSON.stringify({
        commonjs: typeof require === 'function',
        status: result.status,
        invalidArgument: invalid instanceof InvalidArgumentError && invalid instanceof RocketMQError,
        sendMsgTimeout: PRODUCER_DEFAULTS.sendMsgTimeout,
        success: ResponseCode.SUCCESS,
        opaque: typeof nextOpaque(),
      }),
    );
  } finally {
    await producer.shutdown();
    await cluster.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
`,

  // The same project's ESM side (.mts): the import condition's declarations.
  'esm.mts': `import { Producer, PRODUCER_DEFAULTS, type ProducerOptions } from 'rocketmq-ts';
import { EmbeddedCluster } from 'rocketmq-ts/server';

export function typeChecks(): void {
  // @ts-expect-error producerGroup is a string: fails to compile unless the declarations were found
  new Producer({ producerGroup: 42 });
}

const options: ProducerOptions = { producerGroup: 'PG', namesrvAddr: '127.0.0.1:9876' };
console.log(
  JSON.stringify({
    commonjs: typeof require === 'function',
    producer: new Producer(options) instanceof Producer,
    cluster: typeof EmbeddedCluster.start,
    sendMsgTimeout: PRODUCER_DEFAULTS.sendMsgTimeout,
  }),
);
`,
};

/** Writes the consumer project into `dir`; `typesDir` is the repository's node_modules/@types. */
export function writeConsumerProject(dir: string, typesDir: string): void {
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  const tsconfig = {
    compilerOptions: {
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      strict: true,
      // check the package's declarations too, not just our use of them
      skipLibCheck: false,
      outDir: 'out',
      typeRoots: [typesDir],
      types: ['node'],
    },
    files: ['app.ts', 'esm.mts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
}

/** `moduleResolution` settings an application may compile with; every subpath must type-check under each. */
export const RESOLUTIONS = { node10: 'commonjs', nodenext: 'nodenext' } as const;

/**
 * A source importing every subpath in `specifiers` (the package's `exports`), and one tsconfig
 * per resolution that type-checks only it; returns the tsconfig file names. Under node10,
 * TypeScript ignores `exports` and finds a subpath's declarations only through `typesVersions`.
 */
export function writeSubpathProject(dir: string, typesDir: string, specifiers: readonly string[]): string[] {
  const imports = specifiers.map((s, i) => `import * as entry${i} from '${s}';`);
  const uses = specifiers.map((_, i) => `Object.keys(entry${i}).length`);
  writeFileSync(
    join(dir, 'subpaths.ts'),
    `${imports.join('\n')}\nexport const sizes = [${uses.join(', ')}];\n`,
  );
  return Object.entries(RESOLUTIONS).map(([moduleResolution, module]) => {
    const name = `tsconfig.${moduleResolution}.json`;
    const compilerOptions = {
      module,
      moduleResolution,
      target: 'es2022',
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      typeRoots: [typesDir],
      types: ['node'],
    };
    writeFileSync(join(dir, name), JSON.stringify({ compilerOptions, files: ['subpaths.ts'] }, null, 2));
    return name;
  });
}
