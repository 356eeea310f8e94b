/** The web dashboard's public surface (`rocketmq-ts dashboard`, the demo's `--dashboard`). */
export { Dashboard, statusOf } from './server.js';
export type { DashboardOptions, DashboardAuth, ResolvedDashboardOptions } from './options.js';
export { DEFAULT_DASHBOARD_OPTIONS, isLoopbackHost } from './options.js';
export { ProducerWatch, type IsolationEvent, type WatchedProducer } from './producer-watch.js';
export * from '../exporter/index.js';
