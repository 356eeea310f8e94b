/**
 * A minimal one-request-per-connection remoting client built only on the lead's frame codec.
 * The cluster launcher uses it to wait for readiness, so a launcher problem is never confused
 * with a problem of the remoting layer under test.
 */
import * as net from 'node:net';
import { createRequest, type RemotingCommand } from '../src/protocol/command.js';
import { decodeFrame, encodeFrameToBuffer } from '../src/protocol/frame.js';

export async function rawRequest(
  address: string,
  code: number,
  extFields?: Record<string, string>,
  timeoutMs = 3000,
  body?: Uint8Array,
): Promise<RemotingCommand> {
  const sep = address.lastIndexOf(':');
  const host = address.slice(0, sep);
  const port = Number(address.slice(sep + 1));
  if (host !== '127.0.0.1' && host !== 'localhost') throw new Error(`rawRequest: ${address} is not loopback`);
  const cmd = createRequest(code, extFields, body);
  cmd.opaque = 1;
  return new Promise<RemotingCommand>((resolve, reject) => {
    const socket = net.connect({ host, port });
    let buf = Buffer.alloc(0);
    const timer = setTimeout(
      () => finish(new Error(`rawRequest ${code} to ${address} timed out`)),
      timeoutMs,
    );
    function finish(err: Error | undefined, res?: RemotingCommand): void {
      clearTimeout(timer);
      socket.destroy();
      if (err !== undefined) reject(err);
      else resolve(res as RemotingCommand);
    }
    socket.on('connect', () => socket.write(encodeFrameToBuffer(cmd)));
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (buf.length < 4) return;
      const len = buf.readInt32BE(0);
      if (buf.length < 4 + len) return;
      try {
        finish(undefined, decodeFrame(buf.subarray(4, 4 + len)));
      } catch (e) {
        finish(e as Error);
      }
    });
    socket.on('error', (e: Error) => finish(e));
    socket.on('close', () => finish(new Error(`rawRequest ${code}: ${address} closed the connection`)));
  });
}

/** Resolves true once a TCP connection to `address` succeeds. */
export function canConnect(address: string, timeoutMs = 1000): Promise<boolean> {
  const sep = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.slice(0, sep), port: Number(address.slice(sep + 1)) });
    const timer = setTimeout(() => done(false), timeoutMs);
    function done(ok: boolean): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    }
    socket.on('connect', () => done(true));
    socket.on('error', () => done(false));
  });
}
