/** Options of the cluster collector: one interface, one frozen defaults object, one validator. */
import { Admin } from '../admin/admin.js';
import { InvalidArgumentError } from '../errors.js';
import { checkInt, keyList, withDefaults } from '../options.js';

export interface ClusterCollectorOptions {
  /**
   * The Admin client the figures are read with (the collector does not close it). Its
   * `mqClientApiTimeout` bounds the wait for each broker: one slower than that (or refusing) is
   * left out of the scrape and counted in `rocketmq_exporter_scrape_errors_total`.
   */
  admin: Admin;
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
  scrapeTimeoutMs: number;
  concurrency: number;
}

export const DEFAULT_CLUSTER_COLLECTOR_OPTIONS = Object.freeze({
  scrapeTimeoutMs: 8000,
  concurrency: 8,
});

const KNOWN = keyList<ClusterCollectorOptions>({
  admin: true,
  scrapeTimeoutMs: true,
  concurrency: true,
});

export function validateClusterCollectorOptions(
  input: ClusterCollectorOptions,
): ResolvedClusterCollectorOptions {
  const o = withDefaults<ClusterCollectorOptions>(DEFAULT_CLUSTER_COLLECTOR_OPTIONS, input, KNOWN);
  if (!(o.admin instanceof Admin)) throw new InvalidArgumentError('admin', 'must be an Admin client');
  return Object.freeze({
    admin: o.admin,
    scrapeTimeoutMs: checkInt('scrapeTimeoutMs', o.scrapeTimeoutMs, 1, 600_000),
    concurrency: checkInt('concurrency', o.concurrency, 1, 256),
  });
}
