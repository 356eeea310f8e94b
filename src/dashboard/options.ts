/** Options of the web dashboard: one interface, one frozen defaults object, one validator. */
import { Admin } from '../admin/admin.js';
import { Producer } from '../producer/producer.js';
import type { ClientConnectionOptions } from '../client/connection-options.js';
import { CLIENT_CONNECTION_OPTION_KEYS } from '../client/connection-options.js';
import { InvalidArgumentError } from '../errors.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { checkInt, checkLogger, checkObject, checkString, keyList, withDefaults } from '../options.js';

/** HTTP basic authentication of every request. */
export interface DashboardAuth {
  user: string;
  password: string;
}

export interface DashboardOptions extends ClientConnectionOptions {
  /** NameServer addresses, `"a:9876;b:9876"`; required unless `admin` is given. @default process.env.NAMESRV_ADDR */
  namesrvAddr?: string | readonly string[] | undefined;
  /** An Admin client to use (the dashboard does not close it); else it makes its own. @default undefined */
  admin?: Admin | undefined;
  /**
   * The producer dead letters are resent with (the dashboard does not shut it down); else the
   * dashboard starts its own (group DASHBOARD_RESEND_PRODUCER) on the first resend.
   * @default undefined
   */
  producer?: Producer | undefined;
  /** TCP port; 0 picks a free one. @default 8080 */
  port?: number | undefined;
  /** Address to listen on. Anything but loopback should come with `auth`. @default '127.0.0.1' */
  host?: string | undefined;
  /** Basic authentication for every request. @default undefined (none) */
  auth?: DashboardAuth | undefined;
  /** Period of the live views' shared poll, ms. @default 2000 */
  refreshMs?: number | undefined;
  /** Points kept per live chart series. @default 120 */
  historyPoints?: number | undefined;
  /** Timeout of each admin request, ms. @default 5000 */
  requestTimeout?: number | undefined;
  /**
   * Distinct live views (a topic, a group, the cluster, …) polled at once, each shared by all its
   * `/events` streams; a stream for one more is answered 503 with `Retry-After`. @default 32
   */
  maxLiveViews?: number | undefined;
  /** Open `/events` streams at once, all views together; one more is answered 429. @default 256 */
  maxLiveStreams?: number | undefined;
  /**
   * Wrong basic-auth credentials from one client address before it is locked out (429 with
   * `Retry-After`, right credentials included). @default 5
   */
  authMaxFailures?: number | undefined;
  /** The first lockout, ms; it doubles with every further failure, up to 15 minutes. @default 1000 */
  authLockoutMs?: number | undefined;
  /** @default silentLogger */
  logger?: Logger | undefined;
}

export interface ResolvedDashboardOptions {
  namesrvAddr: string | readonly string[] | undefined;
  admin: Admin | undefined;
  producer: Producer | undefined;
  port: number;
  host: string;
  auth: Readonly<DashboardAuth> | undefined;
  refreshMs: number;
  historyPoints: number;
  requestTimeout: number;
  maxLiveViews: number;
  maxLiveStreams: number;
  authMaxFailures: number;
  authLockoutMs: number;
  logger: Logger;
  connection: ClientConnectionOptions;
}

export const DEFAULT_DASHBOARD_OPTIONS = Object.freeze({
  port: 8080,
  host: '127.0.0.1',
  refreshMs: 2000,
  historyPoints: 120,
  requestTimeout: 5000,
  maxLiveViews: 32,
  maxLiveStreams: 256,
  authMaxFailures: 5,
  authLockoutMs: 1000,
  logger: silentLogger,
});

const KNOWN = keyList<DashboardOptions>({
  namesrvAddr: true,
  admin: true,
  producer: true,
  port: true,
  host: true,
  auth: true,
  refreshMs: true,
  historyPoints: true,
  requestTimeout: true,
  maxLiveViews: true,
  maxLiveStreams: true,
  authMaxFailures: true,
  authLockoutMs: true,
  logger: true,
  ...CLIENT_CONNECTION_OPTION_KEYS,
});

/** Addresses that only this machine reaches (the default bind; no warning, Host header checked). */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function validateDashboardOptions(input: DashboardOptions | undefined): ResolvedDashboardOptions {
  const o = withDefaults<DashboardOptions>(DEFAULT_DASHBOARD_OPTIONS, input ?? {}, KNOWN);
  if (o.admin !== undefined && !(o.admin instanceof Admin))
    throw new InvalidArgumentError('admin', 'must be an Admin client');
  if (o.producer !== undefined && !(o.producer instanceof Producer))
    throw new InvalidArgumentError('producer', 'must be a Producer');
  const namesrvAddr = o.namesrvAddr ?? process.env['NAMESRV_ADDR'];
  if (o.admin === undefined && namesrvAddr === undefined)
    throw new InvalidArgumentError('namesrvAddr', 'is required (or set NAMESRV_ADDR, or pass admin)');
  let auth: DashboardAuth | undefined;
  if (o.auth !== undefined) {
    checkObject('auth', o.auth);
    auth = Object.freeze({
      user: checkString('auth.user', o.auth.user, { pattern: /^[^:]+$/ }),
      password: checkString('auth.password', o.auth.password),
    });
  }
  return Object.freeze({
    namesrvAddr,
    admin: o.admin,
    producer: o.producer,
    port: checkInt('port', o.port, 0, 65535),
    host: checkString('host', o.host),
    auth,
    refreshMs: checkInt('refreshMs', o.refreshMs, 50),
    historyPoints: checkInt('historyPoints', o.historyPoints, 2, 10_000),
    requestTimeout: checkInt('requestTimeout', o.requestTimeout, 1),
    maxLiveViews: checkInt('maxLiveViews', o.maxLiveViews, 1, 10_000),
    maxLiveStreams: checkInt('maxLiveStreams', o.maxLiveStreams, 1, 100_000),
    authMaxFailures: checkInt('authMaxFailures', o.authMaxFailures, 1, 1000),
    authLockoutMs: checkInt('authLockoutMs', o.authLockoutMs, 1, 15 * 60_000),
    logger: checkLogger('logger', o.logger),
    connection: { credentials: o.credentials, tls: o.tls },
  });
}
