/** Options of the Admin client: one interface, one frozen defaults object, one validator. */
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { checkInt, checkLogger, checkObject, keyList, withDefaults } from '../options.js';
import { parseNamesrvAddr } from '../producer/options.js';

/** ACL credentials (admin-security.md §4.5): requests are signed with them. */
export interface AdminCredentials {
  accessKey: string;
  secretKey: string;
  securityToken?: string | undefined;
}

/** TLS to brokers and NameServers: `true` for defaults, or node:tls connect options. */
export type AdminTls = boolean | Readonly<Record<string, unknown>>;

export interface AdminOptions {
  /** NameServer addresses, `"a:9876;b:9876"` or an array. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[] | undefined;
  /** Timeout of each admin request, ms (Java `DefaultMQAdminExt` timeoutMillis). @default 5000 */
  requestTimeout?: number | undefined;
  /** ACL credentials, passed to the connections as the producer's and consumer's are. @default undefined */
  credentials?: AdminCredentials | undefined;
  /** TLS settings, passed to the connections as the producer's and consumer's are. @default undefined */
  tls?: AdminTls | undefined;
  /** @default silentLogger */
  logger?: Logger | undefined;
}

export interface ResolvedAdminOptions {
  namesrvAddr: readonly string[];
  requestTimeout: number;
  credentials: AdminCredentials | undefined;
  tls: AdminTls | undefined;
  logger: Logger;
}

export const DEFAULT_ADMIN_OPTIONS: Readonly<Omit<ResolvedAdminOptions, 'namesrvAddr'>> = Object.freeze({
  requestTimeout: 5000,
  credentials: undefined,
  tls: undefined,
  logger: silentLogger,
});

const KNOWN = keyList<AdminOptions>({
  namesrvAddr: true,
  requestTimeout: true,
  credentials: true,
  tls: true,
  logger: true,
});

function checkCredentials(value: unknown): AdminCredentials | undefined {
  if (value === undefined) return undefined;
  checkObject('credentials', value);
  for (const k of ['accessKey', 'secretKey'] as const)
    if (typeof value[k] !== 'string' || value[k] === '')
      throw new InvalidArgumentError(`credentials.${k}`, 'must be a non-empty string');
  if (value.securityToken !== undefined && typeof value.securityToken !== 'string')
    throw new InvalidArgumentError('credentials.securityToken', 'must be a string');
  return Object.freeze({ ...(value as unknown as AdminCredentials) });
}

function checkTls(value: unknown): AdminTls | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  checkObject('tls', value);
  return Object.freeze({ ...value });
}

export function validateAdminOptions(input: AdminOptions | undefined): ResolvedAdminOptions {
  const o = withDefaults<AdminOptions>(DEFAULT_ADMIN_OPTIONS as AdminOptions, input ?? {}, KNOWN);
  const namesrvRaw = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (namesrvRaw === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR)');
  return Object.freeze({
    namesrvAddr: Object.freeze(parseNamesrvAddr(namesrvRaw)),
    requestTimeout: checkInt('requestTimeout', o.requestTimeout, 1),
    credentials: checkCredentials(o.credentials),
    tls: checkTls(o.tls),
    logger: checkLogger('logger', o.logger),
  });
}
