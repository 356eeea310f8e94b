/** Options of the cluster collector: one interface, one frozen defaults object, one validator. */
import { Admin } from '../admin/admin.js';
import { InvalidArgumentError } from '../errors.js';
import { checkInt, keyList, withDefaults } from '../options.js';

export interface ClusterCollectorOptions {
  /** The Admin client the figures are read with (the collector does not close it). */
  admin: Admin;
  /**
   * Longest wait for one broker's (or the NameServer's) answer, ms; a broker slower than this
   * counts as a scrape error and its series are left out of that scrape. @default 3000
   */
  brokerTimeoutMs?: number | undefined;
  /**
   * Longest a whole scrape takes, ms: past it the figures read so far are served and the rest
   * counted as errors (Prometheus' own scrape_timeout defaults to 10 s). @default 8000
   */
  scrapeTimeoutMs?: number | undefined;
  /** Topics and groups read at once. @default 8 */
  concurrency?: number | undefined;
}

export interface ResolvedClusterCollectorOptions {
  admin: Admin;
  brokerTimeoutMs: number;
  scrapeTimeoutMs: number;
  concurrency: number;
}

export const DEFAULT_CLUSTER_COLLECTOR_OPTIONS = Object.freeze({
  brokerTimeoutMs: 3000,
  scrapeTimeoutMs: 8000,
  concurrency: 8,
});

const KNOWN = keyList<ClusterCollectorOptions>({
  admin: true,
  brokerTimeoutMs: true,
  scrapeTimeoutMs: true,
  concurrency: true,
});

export function validateClusterCollectorOptions(input: ClusterCollectorOptions): ResolvedClusterCollectorOptions {
  const o = withDefaults<ClusterCollectorOptions>(DEFAULT_CLUSTER_COLLECTOR_OPTIONS, input, KNOWN);
  if (!(o.admin instanceof Admin)) throw new InvalidArgumentError('admin', 'must be an Admin client');
  return Object.freeze({
    admin: o.admin,
    brokerTimeoutMs: checkInt('brokerTimeoutMs', o.brokerTimeoutMs, 1, 600_000),
    scrapeTimeoutMs: checkInt('scrapeTimeoutMs', o.scrapeTimeoutMs, 1, 600_000),
    concurrency: checkInt('concurrency', o.concurrency, 1, 256),
  });
}
