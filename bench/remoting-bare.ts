/**
 * The floor for bench/remoting.ts: the same two-process echo over loopback with bare
 * length-prefixed frames (no header, no codec, no correlation map). Our remoting layer's figure
 * is printed as a ratio of this one, measured in the same run, because absolute rates swing with
 * whatever else shares the two cores.
 */
import { createConnection, createServer, type Socket } from 'node:net';
import { once } from 'node:events';

/** Splits a stream of `int32 length + payload` frames and calls `onFrame` for each. */
function frameReader(onFrame: (payload: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer | undefined;
  return (chunk) => {
    let buf = pending ? Buffer.concat([pending, chunk]) : chunk;
    pending = undefined;
    let p = 0;
    while (buf.length - p >= 4) {
      const len = buf.readInt32BE(p);
      if (buf.length - p - 4 < len) break;
      onFrame(buf.subarray(p + 4, p + 4 + len));
      p += 4 + len;
    }
    if (p < buf.length) pending = buf.subarray(p);
    buf = Buffer.alloc(0);
  };
}

function frame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + payload.length);
  out.writeInt32BE(payload.length, 0);
  payload.copy(out, 4);
  return out;
}

/** Echo server; resolves with its port. Frames read in one chunk are answered in one write. */
export async function startBareServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    const replies: Buffer[] = [];
    const read = frameReader((payload) => replies.push(frame(payload)));
    socket.on('data', (chunk: Buffer) => {
      read(chunk);
      if (replies.length > 0) socket.write(replies.length === 1 ? replies[0]! : Buffer.concat(replies));
      replies.length = 0;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Keeps `inflight` echo requests outstanding for `durationMs` after `warmupMs`; round trips/s. */
export async function runBareClient(
  port: number,
  inflight: number,
  size: number,
  warmupMs: number,
  durationMs: number,
): Promise<number> {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.setNoDelay(true);
  await once(socket, 'connect');
  const request = frame(Buffer.alloc(size, 0x61));
  let measuring = false;
  let count = 0;
  let running = true;
  // Answers every response read in one chunk with one write, as the server does.
  let due = 0;
  const read = frameReader(() => {
    if (measuring) count++;
    due++;
  });
  socket.on('error', () => socket.destroy());
  socket.on('data', (chunk: Buffer) => {
    read(chunk);
    if (running && due > 0) socket.write(due === 1 ? request : Buffer.concat(Array(due).fill(request)));
    due = 0;
  });
  for (let i = 0; i < inflight; i++) socket.write(request);
  await new Promise((r) => setTimeout(r, warmupMs));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, durationMs));
  measuring = false;
  const elapsedS = (performance.now() - started) / 1000;
  running = false;
  socket.destroy();
  return count / elapsedS;
}
