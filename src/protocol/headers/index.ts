/** Every request/response header and JSON body of the protocol, one module per family. */
export * from './fields.js';
export * from './send.js';
export * from './route.js';
export * from './register.js';
export * from './heartbeat.js';
export * from './pull.js';
export * from './offset.js';
export * from './query.js';
export * from './admin.js';
export * from './broker-admin.js';
export * from './namesrv-admin.js';
export * from './consumer.js';
export * from './transaction.js';
export * from './reply.js';

export * from './pop.js';
export * from './recall.js';
export * from './auth-admin.js';
export * from './registry.js';
