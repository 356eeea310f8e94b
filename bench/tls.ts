/**
 * Producer over TLS vs plain TCP, in one run, against one embedded cluster (in a child process)
 * whose NameServer and brokers run TLS in permissive mode, so both kinds of client use the same
 * ports. Certificates are made for the run and deleted after.
 *
 *   node build/bench/tls.js [--seconds 3] [--concurrency 1,16,64] [--sizes 128,4096]
 *
 * "cpu µs/msg" is this process's CPU per send (the client's cost; the brokers run in the child);
 * "tls/plain" is the ratio of the two, the figure the TLS target (≤ 2×) is about. Prints
 * figures; asserts nothing.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Producer } from '../src/producer/producer.js';
import { EmbeddedCluster } from '../src/server/cluster.js';
import { makeTestCerts } from '../test/helpers/tls-certs.js';

const TOPIC = 'BenchTls';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '1,16,64' },
    sizes: { type: 'string', default: '128,4096' },
    cert: { type: 'string' },
    key: { type: 'string' },
  },
});

async function serveCluster(certFile: string, keyFile: string): Promise<void> {
  const tls = {
    cert: readFileSync(certFile, 'utf8'),
    key: readFileSync(keyFile, 'utf8'),
    mode: 'permissive' as const,
  };
  const cluster = await EmbeddedCluster.start({
    brokers: 2,
    namesrvOptions: { tls },
    brokerOptions: { tls },
  });
  await cluster.createTopic(TOPIC, 8);
  process.send?.({ namesrvAddr: cluster.namesrvAddr });
  process.on('disconnect', () => void cluster.stop().then(() => process.exit(0)));
}

interface Cell {
  sends: number;
  cpuUsPerMsg: number;
  msgsPerSec: number;
}

async function measure(
  producer: Producer,
  body: Buffer,
  concurrency: number,
  seconds: number,
): Promise<Cell> {
  const message = { topic: TOPIC, body };
  // Warm-up: connections, routes, TLS sessions, JIT.
  for (let i = 0; i < 200; i++) await producer.send(message);
  let sends = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await producer.send(message);
        sends++;
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const elapsed = (performance.now() - started) / 1000;
  return { sends, cpuUsPerMsg: (cpu.user + cpu.system) / sends, msgsPerSec: sends / elapsed };
}

async function main(): Promise<void> {
  if (positionals[0] === 'serve') return serveCluster(values.cert as string, values.key as string);
  const certs = makeTestCerts();
  const child = fork(fileURLToPath(import.meta.url), [
    'serve',
    '--cert',
    certs.files.cert,
    '--key',
    certs.files.key,
  ]);
  try {
    const [ready] = (await once(child, 'message')) as [{ namesrvAddr: string }];
    const seconds = Number(values.seconds);
    const concurrencies = values.concurrency.split(',').map(Number);
    const sizes = values.sizes.split(',').map(Number);
    const producers = {
      plain: new Producer({
        namesrvAddr: ready.namesrvAddr,
        producerGroup: 'BENCH_PLAIN',
        instanceName: 'plain',
      }),
      tls: new Producer({
        namesrvAddr: ready.namesrvAddr,
        producerGroup: 'BENCH_TLS',
        instanceName: 'tls',
        tls: { ca: certs.ca },
      }),
    };
    await producers.plain.start();
    await producers.tls.start();
    console.log('size  conc | plain msg/s  cpu µs/msg | tls msg/s  cpu µs/msg | tls/plain cpu');
    for (const size of sizes) {
      const body = randomBytes(size);
      for (const c of concurrencies) {
        const plain = await measure(producers.plain, body, c, seconds);
        const tls = await measure(producers.tls, body, c, seconds);
        console.log(
          `${String(size).padStart(5)} ${String(c).padStart(4)} | ${plain.msgsPerSec.toFixed(0).padStart(11)} ${plain.cpuUsPerMsg.toFixed(1).padStart(11)} | ${tls.msgsPerSec.toFixed(0).padStart(9)} ${tls.cpuUsPerMsg.toFixed(1).padStart(11)} | ${(tls.cpuUsPerMsg / plain.cpuUsPerMsg).toFixed(2)}×`,
        );
      }
    }
    await producers.plain.shutdown();
    await producers.tls.shutdown();
  } finally {
    child.disconnect();
    await once(child, 'exit');
    certs.cleanup();
  }
}

await main();
