/**
 * Remoting round-trip benchmark: an echo RemotingServer in a child process and a client
 * Connection in this one, on loopback, with a fixed number of requests in flight.
 *
 *   npm run bench:remoting -- --duration 5 --inflight 64 --size 128
 *
 * Prints round trips per second, p50/p99 latency and the client's RSS, then the same echo with
 * bare length-prefixed frames (`remoting-bare.ts`) and the ratio of the two, measured in the same
 * run (`--no-baseline` skips it). Figures, not assertions.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequest, createResponse } from '../src/protocol/command.js';
import { Connection } from '../src/remoting/connection.js';
import { RemotingServer } from '../src/remoting/server.js';
import { runBareClient, startBareServer } from './remoting-bare.js';
import { MicrosecondHistogram } from './remoting-histogram.js';

const ECHO_CODE = 10;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    inflight: { type: 'string', default: '64' },
    size: { type: 'string', default: '128' },
    'no-baseline': { type: 'boolean', default: false },
  },
});

async function runServer(): Promise<void> {
  const server = new RemotingServer();
  server.registerProcessor(ECHO_CODE, (req) => createResponse(req, 0, undefined, undefined, req.body));
  const { port } = await server.listen();
  process.send?.({ port });
  let mark = process.cpuUsage();
  process.on('message', (msg: { mark?: boolean; report?: boolean; stop?: boolean }) => {
    if (msg.mark) mark = process.cpuUsage();
    if (msg.report) {
      const used = process.cpuUsage(mark);
      process.send?.({ cpuUs: used.user + used.system });
    }
    if (msg.stop) void server.close().then(() => process.exit(0));
  });
}

async function runBareServerChild(): Promise<void> {
  const server = await startBareServer();
  process.send?.({ port: server.port });
  process.on('message', (msg: { stop?: boolean }) => {
    if (msg.stop) void server.close().then(() => process.exit(0));
  });
}

/** Bare-framing round trips/s, with the server in a child process like the real run. */
async function measureBaseline(inflight: number, size: number, warmupMs: number, durationMs: number) {
  const child = fork(fileURLToPath(import.meta.url), ['bare-server'], { stdio: 'inherit' });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  const rate = await runBareClient(port, inflight, size, warmupMs, durationMs);
  child.send({ stop: true });
  await once(child, 'exit');
  return rate;
}

async function runClient(): Promise<void> {
  const durationMs = Number(values.duration) * 1000;
  const warmupMs = Number(values.warmup) * 1000;
  const inflight = Number(values.inflight);
  const body = Buffer.alloc(Number(values.size), 0x61);

  // --cpu-prof on the client is passed on to the server child too (profile both ends).
  const child = fork(fileURLToPath(import.meta.url), ['server'], {
    stdio: 'inherit',
    execArgv: process.execArgv,
  });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  const conn = await Connection.connect(`127.0.0.1:${port}`);
  const histogram = new MicrosecondHistogram();
  let measuring = false;
  let running = true;
  let count = 0;
  let errors = 0;

  async function worker(): Promise<void> {
    while (running) {
      const cmd = createRequest(
        ECHO_CODE,
        { topic: 'BenchTopic', queueId: '0', producerGroup: 'bench' },
        body,
      );
      const started = performance.now();
      try {
        await conn.request(cmd, 3000);
      } catch {
        errors++;
        continue;
      }
      if (measuring) {
        histogram.record((performance.now() - started) * 1000);
        count++;
      }
    }
  }

  const workers = Array.from({ length: inflight }, () => worker());
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  child.send({ mark: true });
  const cpuMark = process.cpuUsage();
  const started = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const elapsedS = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(cpuMark);
  child.send({ report: true });
  const [{ cpuUs: serverCpuUs }] = (await once(child, 'message')) as [{ cpuUs: number }];
  const rssMiB = process.memoryUsage().rss / 1024 / 1024;
  running = false;
  await Promise.all(workers);
  conn.close();
  child.send({ stop: true });
  await once(child, 'exit');

  const fmt = (us: number): string => `${(us / 1000).toFixed(3)} ms`;
  console.log(
    `remoting echo: ${inflight} in flight, ${body.length} B body, JSON headers, ${elapsedS.toFixed(1)} s`,
  );
  console.log(`  round trips/s : ${Math.round(count / elapsedS).toLocaleString('en-US')}`);
  console.log(`  latency p50   : ${fmt(histogram.percentile(50))}`);
  console.log(`  latency p99   : ${fmt(histogram.percentile(99))}`);
  console.log(`  client RSS    : ${rssMiB.toFixed(1)} MiB`);
  // CPU per round trip is steadier than the rate when other processes share the cores.
  const perRt = (us: number): string => `${(us / count).toFixed(1)} µs`;
  console.log(
    `  CPU/round trip: client ${perRt(clientCpu.user + clientCpu.system)}, server ${perRt(serverCpuUs)}`,
  );
  if (errors > 0) console.log(`  errors        : ${errors}`);
  if (values['no-baseline']) return;
  const bare = await measureBaseline(inflight, body.length, warmupMs, durationMs);
  const ours = count / elapsedS;
  console.log(
    `bare length-prefixed framing, same setup: ${Math.round(bare).toLocaleString('en-US')} round trips/s`,
  );
  console.log(`  rocketmq-ts / bare framing: ${(ours / bare).toFixed(2)}`);
}

if (positionals[0] === 'server') await runServer();
else if (positionals[0] === 'bare-server') await runBareServerChild();
else await runClient();
