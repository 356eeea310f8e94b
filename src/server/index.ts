/**
 * `rocketmq-ts/server`: the embedded NameServer, Broker, message store and EmbeddedCluster.
 * A separate entry point, so that applications importing `Producer` never load them.
 */
export { EmbeddedCluster, DEFAULT_EMBEDDED_CLUSTER_OPTIONS, brokerNameAt } from './cluster.js';
export type { EmbeddedClusterOptions, EmbeddedBroker } from './cluster.js';
export { NameServer, DEFAULT_NAMESERVER_OPTIONS } from './namesrv/namesrv.js';
export type { NameServerOptions } from './namesrv/namesrv.js';
export { Broker } from './broker/broker.js';
export type { BrokerFaults, BrokerStopOptions } from './broker/broker.js';
export { DEFAULT_BROKER_OPTIONS } from './broker/options.js';
export { BROKER_NODE_FLAGS, BROKER_SEMI_SPACE_MB, BROKER_THREAD_RESOURCE_LIMITS } from './broker-heap.js';
export type { BrokerOptions, FlushDiskType } from './broker/options.js';
export type { TimerPutResult } from './broker/timer-service.js';
export type { AclAccount, AclConfig } from './acl/acl-config.js';
export type { ServerTlsOptions, TlsServerMode, PemInput } from '../remoting/tls-server.js';
export {
  FAULT_INJECTION_REQUEST_CODE,
  faultSpecToExtFields,
  faultSpecFromExtFields,
} from './broker/faults.js';
export type { FaultSpec } from './broker/faults.js';
export { FaultInjectionDisabledError, setRemoteFault } from './broker/fault-control.js';
export * from './store/index.js';
