/**
 * The connection-security options every client takes: ACL credentials and TLS. One fragment,
 * one validator, one instance-key part; the shared client options (client-options.ts) extend
 * it and resolve it, so every class gets it as `connection` in its resolved options.
 */
import { createHash } from 'node:crypto';
import type { ConnectionOptions as TlsConnectOptions } from 'node:tls';
import { InvalidArgumentError } from '../errors.js';
import { checkBoolean, checkObject, checkString, rejectUnknownKeys } from '../options.js';
import { signRequest } from '../protocol/acl.js';
import type { RpcHook } from '../remoting/hooks.js';

/** ACL 1.0 credentials (Java `SessionCredentials`); 5.x ACL 2.0 takes the username as accessKey and the password as secretKey. */
export interface Credentials {
  accessKey: string;
  secretKey: string;
  /** Sent as `SecurityToken` and signed (STS tokens). @default undefined */
  securityToken?: string | undefined;
}

export type PemInput = string | Buffer | Array<string | Buffer>;

/** TLS to NameServers and brokers. PEM strings or buffers, as `node:tls` takes them. */
export interface ClientTlsOptions {
  /** CA certificates the server must chain to. @default undefined: Node's built-in root CAs */
  ca?: PemInput | undefined;
  /** Client certificate (mutual TLS). @default undefined */
  cert?: PemInput | undefined;
  /** Client private key (mutual TLS). @default undefined */
  key?: PemInput | undefined;
  /**
   * The host name the server certificate must be for (also sent as SNI).
   * @default undefined: the host of the address connected to (an IP address is matched against
   * the certificate's IP entries)
   */
  servername?: string | undefined;
  /**
   * Verify the server certificate (chain and host name); a refusal is a TlsVerificationError.
   * `false` trusts any certificate with no host name check, as Java's client does unless
   * `tls.test.mode.enable=false` and `tls.client.authServer=true` (CLI `--tls-insecure`): the
   * traffic is encrypted but anyone on the path can pose as the server. @default true
   */
  rejectUnauthorized?: boolean | undefined;
}

export interface ClientConnectionOptions {
  /** Sign every request as Java's `AclClientRPCHook` (docs/protocol.md §9). @default undefined: unsigned */
  credentials?: Credentials | undefined;
  /**
   * TLS to every NameServer and broker (Java `useTLS`); `true` = `{}`: verify the server against
   * Node's root CAs and the host name. Give `ca` for a private CA, `rejectUnauthorized: false`
   * for Java's trust-any-certificate behaviour. @default false
   */
  tls?: boolean | ClientTlsOptions | undefined;
}

/** Add to a client's `keyList` with a spread. */
export const CLIENT_CONNECTION_OPTION_KEYS = Object.freeze({ credentials: true, tls: true } as const);

const CREDENTIAL_KEYS = ['accessKey', 'secretKey', 'securityToken'];
const TLS_KEYS = ['ca', 'cert', 'key', 'servername', 'rejectUnauthorized'];

/** The validated fragment, as ClientInstance uses it. */
export interface ClientConnection {
  readonly credentials: Readonly<Credentials> | undefined;
  /** `node:tls` connect options, or undefined for plain TCP. */
  readonly tls: Readonly<TlsConnectOptions> | undefined;
}

export const PLAIN_CONNECTION: ClientConnection = Object.freeze({ credentials: undefined, tls: undefined });

function checkPem(field: string, value: unknown): void {
  if (value === undefined) return;
  const items = Array.isArray(value) ? value : [value];
  for (const v of items)
    if (typeof v !== 'string' && !Buffer.isBuffer(v))
      throw new InvalidArgumentError(field, 'must be PEM text or a Buffer (or an array of them)');
}

/** Validates `credentials` and `tls` of a client's options; throws InvalidArgumentError naming the field. */
export function resolveClientConnection(options: ClientConnectionOptions): ClientConnection {
  const { credentials, tls } = options;
  let creds: Readonly<Credentials> | undefined;
  if (credentials !== undefined) {
    checkObject('credentials', credentials);
    rejectUnknownKeys(credentials, CREDENTIAL_KEYS, 'option', 'credentials.');
    const accessKey = checkString('credentials.accessKey', credentials.accessKey);
    const secretKey = checkString('credentials.secretKey', credentials.secretKey);
    const token = credentials.securityToken;
    if (token !== undefined) checkString('credentials.securityToken', token);
    creds = Object.freeze({ accessKey, secretKey, ...(token !== undefined ? { securityToken: token } : {}) });
  }
  let tlsOptions: TlsConnectOptions | undefined;
  if (tls !== undefined && tls !== false) {
    if (tls !== true) checkObject('tls', tls);
    const t = (tls === true ? {} : tls) as ClientTlsOptions;
    rejectUnknownKeys(t, TLS_KEYS, 'option', 'tls.');
    for (const f of ['ca', 'cert', 'key'] as const) checkPem(`tls.${f}`, t[f]);
    if (t.servername !== undefined) checkString('tls.servername', t.servername);
    // Verified by default, chain and host name (Node's own check); Java's client verifies
    // neither, which only an explicit `rejectUnauthorized: false` asks for here.
    const verify = checkBoolean('tls.rejectUnauthorized', t.rejectUnauthorized ?? true);
    tlsOptions = {
      rejectUnauthorized: verify,
      ...(t.ca !== undefined ? { ca: t.ca } : {}),
      ...(t.cert !== undefined ? { cert: t.cert } : {}),
      ...(t.key !== undefined ? { key: t.key } : {}),
      ...(t.servername !== undefined ? { servername: t.servername } : {}),
      ...(verify ? {} : { checkServerIdentity: () => undefined }),
    };
  }
  if (creds === undefined && tlsOptions === undefined) return PLAIN_CONNECTION;
  return Object.freeze({ credentials: creds, tls: tlsOptions && Object.freeze(tlsOptions) });
}

/** Part of the client-instance key: clients share connections only with identical security. Secrets are hashed. */
export function connectionKey(c: ClientConnection | undefined): string {
  if (c === undefined || (c.credentials === undefined && c.tls === undefined)) return '';
  const hash = createHash('sha256');
  const { credentials: cr, tls } = c;
  hash.update(JSON.stringify([cr?.accessKey, cr?.secretKey, cr?.securityToken]));
  if (tls !== undefined) {
    const pem = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(pem) : Buffer.isBuffer(v) ? v.toString('base64') : v;
    hash.update(
      JSON.stringify([tls.rejectUnauthorized, tls.servername, pem(tls.ca), pem(tls.cert), pem(tls.key)]),
    );
  }
  return hash.digest('base64');
}

/** The RPC hook that signs every outgoing request (NameServer and broker alike), or none. */
function connectionHooks(c: ClientConnection | undefined): RpcHook[] {
  const cr = c?.credentials;
  if (cr === undefined) return [];
  const { accessKey, secretKey, securityToken } = cr;
  return [{ beforeRequest: (_address, cmd) => void signRequest(cmd, accessKey, secretKey, securityToken) }];
}

/** What a ConnectionPool needs to sign and encrypt as `c` says (ClientInstance, CLI tools). */
export function connectionPoolOptions(c: ClientConnection | undefined): {
  hooks: RpcHook[];
  tls: Readonly<TlsConnectOptions> | undefined;
} {
  return { hooks: connectionHooks(c), tls: c?.tls };
}
