/**
 * ACL and TLS flags, shared by the commands that connect (client side) and those that serve
 * (server side). Credentials also come from ROCKETMQ_ACCESS_KEY / ROCKETMQ_SECRET_KEY, so they
 * need not appear in a shell history; a flag wins over the environment.
 */
import { readFileSync } from 'node:fs';
import { resolveClientConnection, type ClientConnectionOptions } from '../client/connection-options.js';
import { InvalidArgumentError } from '../errors.js';
import type { TlsServerMode } from '../remoting/tls-server.js';
import type { AclConfig } from '../server/acl/acl-config.js';
import type { ServerTlsOptions } from '../remoting/tls-server.js';
import { oneOf } from './flags.js';

export const CLIENT_SECURITY_FLAGS = {
  'access-key': { type: 'string' },
  'secret-key': { type: 'string' },
  tls: { type: 'boolean' },
  'tls-ca': { type: 'string' },
  'tls-insecure': { type: 'boolean' },
} as const;

export const CLIENT_SECURITY_HELP = `  --access-key AK    ACL access key (default env ROCKETMQ_ACCESS_KEY); signs every request
  --secret-key SK    ACL secret key (default env ROCKETMQ_SECRET_KEY)
  --tls              connect with TLS; the server certificate and host name are verified
                     against the system's root CAs
  --tls-ca FILE      connect with TLS and verify the server against this PEM CA
  --tls-insecure     connect with TLS trusting any server certificate (Java's useTLS default;
                     anyone on the path can pose as the server)`;

export const SERVER_TLS_FLAGS = {
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'tls-mode': { type: 'string' },
} as const;

export const SERVER_SECURITY_FLAGS = { acl: { type: 'string' }, ...SERVER_TLS_FLAGS } as const;

export const SERVER_TLS_HELP = `  --tls-cert FILE    PEM certificate chain: turns TLS on
  --tls-key FILE     PEM private key (with --tls-cert)
  --tls-mode M       permissive | enforcing | disabled (default permissive, as Java)`;

export const SERVER_SECURITY_HELP = `  --acl FILE         plain_acl.yml-compatible ACL file, reloaded when it changes
${SERVER_TLS_HELP}`;

/** A PEM file's text; an unreadable file is an error naming `flag`. */
export function readPem(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidArgumentError(flag, `cannot read ${file}: ${(err as Error).message}`);
  }
}

type ClientFlagValues = {
  [K in keyof typeof CLIENT_SECURITY_FLAGS]?: (typeof CLIENT_SECURITY_FLAGS)[K]['type'] extends 'boolean'
    ? boolean
    : string;
};
type ServerFlagValues = { [K in keyof typeof SERVER_SECURITY_FLAGS]?: string | undefined };

/** `credentials` and `tls` client options from the flags and the environment (validated). */
export function clientSecurity(values: ClientFlagValues, env = process.env): ClientConnectionOptions {
  const accessKey = values['access-key'] ?? env['ROCKETMQ_ACCESS_KEY'];
  const secretKey = values['secret-key'] ?? env['ROCKETMQ_SECRET_KEY'];
  if ((accessKey === undefined) !== (secretKey === undefined))
    throw new InvalidArgumentError(
      accessKey === undefined ? '--access-key' : '--secret-key',
      'give both --access-key and --secret-key (or ROCKETMQ_ACCESS_KEY and ROCKETMQ_SECRET_KEY)',
    );
  const ca = values['tls-ca'];
  const insecure = values['tls-insecure'] === true;
  if (insecure && ca !== undefined)
    throw new InvalidArgumentError(
      '--tls-insecure',
      'verifies nothing, so --tls-ca would be ignored: give one',
    );
  const tls: ClientConnectionOptions['tls'] = insecure
    ? { rejectUnauthorized: false }
    : ca !== undefined
      ? { ca: readPem('--tls-ca', ca) }
      : values.tls === true
        ? true
        : undefined;
  const options: ClientConnectionOptions = {
    ...(accessKey !== undefined && secretKey !== undefined ? { credentials: { accessKey, secretKey } } : {}),
    ...(tls !== undefined ? { tls } : {}),
  };
  resolveClientConnection(options);
  return options;
}

/** `acl` (a file path) and `tls` server options from the flags. */
export function serverSecurity(values: ServerFlagValues): {
  acl?: AclConfig | string;
  tls?: ServerTlsOptions;
} {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if ((cert === undefined) !== (key === undefined))
    throw new InvalidArgumentError(
      cert === undefined ? '--tls-cert' : '--tls-key',
      'give both --tls-cert and --tls-key',
    );
  const mode = values['tls-mode'];
  if (mode !== undefined && cert === undefined)
    throw new InvalidArgumentError('--tls-mode', 'needs --tls-cert and --tls-key');
  return {
    ...(values.acl !== undefined ? { acl: values.acl } : {}),
    ...(cert !== undefined && key !== undefined
      ? {
          tls: {
            cert: readPem('--tls-cert', cert),
            key: readPem('--tls-key', key),
            mode: oneOf<TlsServerMode>('--tls-mode', mode ?? 'permissive', [
              'permissive',
              'enforcing',
              'disabled',
            ]),
          },
        }
      : {}),
  };
}
