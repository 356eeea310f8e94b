/** Test helpers for remoting: capturing logger, raw sockets, independent frame builder. */
import { once } from 'node:events';
import * as net from 'node:net';
import type { Logger } from '../../src/observability/logger.js';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  msg: string;
  meta: Record<string, unknown> | undefined;
}

export function capturingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = [];
  const make =
    (level: LogEntry['level']) =>
    (msg: string, meta?: object): void => {
      entries.push({ level, msg, meta: meta as Record<string, unknown> | undefined });
    };
  return { entries, debug: make('debug'), info: make('info'), warn: make('warn'), error: make('error') };
}

/** Hex fixtures from docs/protocol.md §14 (verified with the Java classes). */
export const HEX_14_1 =
  '00000087000000837b22636f6465223a3130352c226578744669656c6473223a7b22746f706963223a22546f70696354657374227d2c22666c6167223a302c226c616e6775616765223a224a415641222c226f7061717565223a312c2273657269616c697a655479706543757272656e74525043223a224a534f4e222c2276657273696f6e223a3430377d';
export const HEX_14_2 = hex(
  '0000002d 01000029 0069 00 0197 00000001 00000000 00000000 00000014 0005 746f706963 00000009 546f70696354657374',
);
export const HEX_14_3 = hex('0000001b 01000015 0000 00 0197 00000001 00000001 00000000 00000000 7b7d');

function hex(spaced: string): string {
  return spaced.replace(/ /g, '');
}

/**
 * Builds a frame byte by byte, independently of `encodeFrame`: length, type word, JSON header
 * text as given, body.
 */
export function rawJsonFrame(headerJson: string, body: Uint8Array = new Uint8Array(0), type = 0): Buffer {
  const header = Buffer.from(headerJson, 'utf8');
  const out = Buffer.alloc(8 + header.length + body.length);
  out.writeInt32BE(4 + header.length + body.length, 0);
  out.writeUInt32BE(((type << 24) >>> 0) + header.length, 4);
  header.copy(out, 8);
  out.set(body, 8 + header.length);
  return out;
}

export function jsonHeader(fields: { code: number; opaque: number; flag: number; remark?: string }): string {
  const remark = fields.remark === undefined ? '' : `,"remark":${JSON.stringify(fields.remark)}`;
  return `{"code":${fields.code},"flag":${fields.flag},"language":"JAVA","opaque":${fields.opaque}${remark},"serializeTypeCurrentRPC":"JSON","version":407}`;
}

export async function rawConnect(port: number): Promise<net.Socket> {
  const socket = net.connect({ host: '127.0.0.1', port });
  await once(socket, 'connect');
  return socket;
}

/** Resolves when `socket` closes; true when it closed within `ms`. */
export function closedWithin(socket: net.Socket, ms: number): Promise<boolean> {
  if (socket.destroyed && socket.closed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Collects everything a raw socket receives. */
export function collect(socket: net.Socket): { bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  return { bytes: () => Buffer.concat(chunks) };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `predicate` until true or `ms` elapse. */
export async function waitUntil(predicate: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await delay(5);
  }
}
