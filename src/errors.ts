/**
 * The one errors module every other module imports from. The classes live in `errors/` by
 * family; this barrel re-exports them all, so `import { TimeoutError } from '../errors.js'`
 * works from any layer. Every class here is also exported from the package root (src/index.ts;
 * test/errors/root-exports.test.ts fails on one that is not).
 */
export * from './errors/base.js';
export * from './errors/connection.js';
export * from './errors/broker.js';
export * from './errors/producer.js';
export * from './errors/consumer.js';
export * from './errors/admin.js';
export * from './errors/namesrv.js';
export * from './errors/abort.js';
export * from './errors/lifecycle.js';
