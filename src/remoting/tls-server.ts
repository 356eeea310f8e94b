/**
 * Server-side TLS as Java's `tls.server.mode` (docs/security.md §3): `disabled` plain only,
 * `enforcing` TLS only, `permissive` (Java's default) both on one port, told apart by the first
 * byte a client sends: 0x16 (a TLS handshake record) starts TLS, anything else is a plain frame.
 */
import { Duplex } from 'node:stream';
import * as net from 'node:net';
import * as tls from 'node:tls';
import { InvalidArgumentError } from '../errors.js';
import { checkEnum, checkObject, rejectUnknownKeys } from '../options.js';

export type TlsServerMode = 'disabled' | 'permissive' | 'enforcing';

export type PemInput = string | Buffer | Array<string | Buffer>;

export interface ServerTlsOptions {
  /** PEM certificate chain (Java `tls.server.certPath`). */
  cert: PemInput;
  /** PEM private key (Java `tls.server.keyPath`). */
  key: PemInput;
  /** When given, clients must present a certificate signed by it (Java `tls.server.authClient`). @default undefined */
  ca?: PemInput | undefined;
  /** @default 'permissive' (Java's default) */
  mode?: TlsServerMode | undefined;
}

/** The validated settings a server accepts connections with. */
export interface ServerTls {
  readonly mode: TlsServerMode;
  readonly context: tls.SecureContext;
  readonly verifyClient: boolean;
}

const TLS_HANDSHAKE = 0x16;
const KEYS = ['cert', 'key', 'ca', 'mode'];

/** A PEM input (text, bytes, or a list of either) that parses as certificates; throws naming `field`. */
export function checkPem(field: string, pem: unknown): PemInput {
  const parts = Array.isArray(pem) ? (pem as unknown[]) : [pem];
  if (parts.length === 0 || !parts.every((p) => typeof p === 'string' || Buffer.isBuffer(p)))
    throw new InvalidArgumentError(field, 'must be PEM text, a Buffer, or a list of them');
  // node:tls skips text that holds no PEM block instead of failing: a typo would trust nothing.
  for (const part of parts)
    if (!String(part).includes('-----BEGIN CERTIFICATE-----'))
      throw new InvalidArgumentError(field, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
  try {
    tls.createSecureContext({ ca: pem as PemInput });
  } catch (err) {
    throw new InvalidArgumentError(field, `cannot load the certificates: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return pem as PemInput;
}

/** Validates `tls` (field names `tls.*`) and loads the certificate; undefined for no TLS. */
export function resolveServerTls(options: ServerTlsOptions | undefined): ServerTls | undefined {
  if (options === undefined) return undefined;
  checkObject('tls', options);
  rejectUnknownKeys(options, KEYS, 'option', 'tls.');
  const mode = checkEnum<TlsServerMode>('tls.mode', options.mode ?? 'permissive', [
    'disabled',
    'permissive',
    'enforcing',
  ]);
  if (mode === 'disabled') return undefined;
  for (const f of ['cert', 'key'] as const)
    if (options[f] === undefined) throw new InvalidArgumentError(`tls.${f}`, 'is required (PEM)');
  try {
    const context = tls.createSecureContext({
      cert: options.cert,
      key: options.key,
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
    });
    return { mode, context, verifyClient: options.ca !== undefined };
  } catch (err) {
    throw new InvalidArgumentError('tls', `cannot load the certificate or key: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

/**
 * A Duplex replaying `first` and then relaying `socket`: the TLS layer must see the bytes the
 * sniffing already read, and a TLSSocket over a raw net.Socket would read from its handle.
 */
function replaying(socket: net.Socket, first: Buffer): Duplex {
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(err, callback) {
      socket.destroy();
      callback(err);
    },
  });
  duplex.push(first);
  socket.on('data', (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('close', () => duplex.destroy());
  socket.on('error', (err) => duplex.destroy(err));
  return duplex;
}

/**
 * Calls `ready(socket, secure)` once the connection may carry frames (after the handshake for
 * TLS), or destroys it: a failed handshake, or a plain client on an enforcing server.
 */
export function acceptTls(
  socket: net.Socket,
  settings: ServerTls,
  ready: (stream: net.Socket, secure: boolean) => void,
  onError: (err: Error) => void,
): void {
  const secure = (transport: net.Socket | Duplex): void => {
    const tlsSocket = new tls.TLSSocket(transport as net.Socket, {
      isServer: true,
      secureContext: settings.context,
      requestCert: settings.verifyClient,
      rejectUnauthorized: settings.verifyClient,
    });
    tlsSocket.once('secure', () => ready(tlsSocket, true));
    tlsSocket.once('error', (err) => {
      onError(err);
      tlsSocket.destroy();
      socket.destroy();
    });
  };
  if (settings.mode === 'enforcing') {
    // No sniffing needed: a plain client fails the handshake and is closed.
    secure(socket);
    return;
  }
  const onSniffError = (err: Error): void => {
    onError(err);
    socket.destroy();
  };
  socket.once('error', onSniffError);
  socket.once('data', (first: Buffer) => {
    socket.removeListener('error', onSniffError);
    socket.pause();
    if (first[0] === TLS_HANDSHAKE) {
      secure(replaying(socket, first));
    } else {
      socket.unshift(first);
      ready(socket, false);
      socket.resume();
    }
  });
}
