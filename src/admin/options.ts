/** Options of the Admin client: one interface, one frozen defaults object, one validator. */
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { checkInt, checkLogger, keyList, withDefaults } from '../options.js';
import {
  CLIENT_CONNECTION_OPTION_KEYS,
  resolveClientConnection,
  type ClientConnection,
  type ClientConnectionOptions,
} from '../client/connection-options.js';
import { parseNamesrvAddr } from '../producer/options.js';

/** `credentials` and `tls` are the shared client connection options (client/connection-options.ts). */
export interface AdminOptions extends ClientConnectionOptions {
  /** NameServer addresses, `"a:9876;b:9876"` or an array. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[] | undefined;
  /** Timeout of each admin request, ms (Java `DefaultMQAdminExt` timeoutMillis). @default 5000 */
  requestTimeout?: number | undefined;
  /** @default silentLogger */
  logger?: Logger | undefined;
}

export interface ResolvedAdminOptions {
  namesrvAddr: readonly string[];
  requestTimeout: number;
  /** ACL credentials and TLS of every connection. */
  connection: ClientConnection;
  logger: Logger;
}

export const DEFAULT_ADMIN_OPTIONS: Readonly<Omit<ResolvedAdminOptions, 'namesrvAddr' | 'connection'>> =
  Object.freeze({
    requestTimeout: 5000,
    logger: silentLogger,
  });

const KNOWN = keyList<AdminOptions>({
  namesrvAddr: true,
  requestTimeout: true,
  logger: true,
  ...CLIENT_CONNECTION_OPTION_KEYS,
});

export function validateAdminOptions(input: AdminOptions | undefined): ResolvedAdminOptions {
  const o = withDefaults<AdminOptions>(DEFAULT_ADMIN_OPTIONS as AdminOptions, input ?? {}, KNOWN);
  const namesrvRaw = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (namesrvRaw === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
  return Object.freeze({
    namesrvAddr: Object.freeze(parseNamesrvAddr(namesrvRaw)),
    requestTimeout: checkInt('requestTimeout', o.requestTimeout, 1),
    connection: resolveClientConnection(o),
    logger: checkLogger('logger', o.logger),
  });
}
