/** The Prometheus exporter's public surface (`rocketmq-ts exporter`, the dashboard's `/metrics`). */
export { ClusterCollector } from './collector.js';
export { MetricsServer, type MetricsServerOptions } from './metrics-server.js';
export type { ClusterCollectorOptions, ResolvedClusterCollectorOptions } from './options.js';
export { DEFAULT_CLUSTER_COLLECTOR_OPTIONS } from './options.js';
export {
  EXPOSITION_CONTENT_TYPE,
  escapeLabelValue,
  writeExposition,
  type MetricFamily,
  type MetricSample,
  type MetricType,
} from './exposition.js';
