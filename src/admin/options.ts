/**
 * Options of the Admin client: the shared client options (client/client-options.ts) minus the
 * ones an admin client cannot honour, with Java `DefaultMQAdminExt`'s request timeout; one
 * frozen defaults object, one validator.
 */
import {
  resolveClientOptions,
  type ClientOptions,
  type ResolvedClientOptions,
} from '../client/client-options.js';

/** Why Admin refuses a shared option; a JavaScript caller (no types) gets this text in the error. */
const ADMIN_UNSUPPORTED = Object.freeze({
  namespace:
    'Admin takes topic and group names as they are on the wire (give `<namespace>%<name>`), as mqadmin does',
  pollNameServerInterval: 'Admin keeps no routes to refresh; it asks the NameServer on every call',
  heartbeatBrokerInterval: 'Admin registers no producer or consumer, so it sends no heartbeats',
});

/**
 * `credentials` and `tls` are the shared client connection options; `mqClientApiTimeout` is the
 * timeout of each admin request.
 */
export interface AdminOptions extends Omit<ClientOptions, keyof typeof ADMIN_UNSUPPORTED> {
  /** Timeout of each admin request, ms (Java `DefaultMQAdminExt` timeoutMillis). @default 5000 */
  mqClientApiTimeout?: number | undefined;
}

export type ResolvedAdminOptions = Readonly<ResolvedClientOptions>;

export const DEFAULT_ADMIN_OPTIONS = Object.freeze({ mqClientApiTimeout: 5000 });

export function validateAdminOptions(input: AdminOptions | undefined): ResolvedAdminOptions {
  return Object.freeze(
    resolveClientOptions(input ?? {}, {
      client: 'Admin',
      own: [],
      unsupported: ADMIN_UNSUPPORTED,
      defaults: DEFAULT_ADMIN_OPTIONS,
    }),
  );
}
