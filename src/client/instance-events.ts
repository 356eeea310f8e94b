/**
 * The events every client takes from its ClientInstance, wired in one place (docs/events.md):
 * 'routeUpdated' from the route cache (topic without the namespace), 'connect' / 'disconnect'
 * from the connection pool. An instance may be shared by several clients of one process (same
 * client id and NameServers): each of them sees the instance's routes and connections.
 */
import type { ConnectEvent, ConnectionPool, DisconnectEvent } from '../remoting/pool.js';
import type { ClientInstance } from './client-instance.js';
import { withoutNamespace } from './namespace.js';
import type { RouteUpdatedEvent } from './route-lookup.js';

export type { ConnectEvent, DisconnectEvent } from '../remoting/pool.js';

/** The part of every client's Events interface that comes from its instance. */
export interface ClientInstanceEvents {
  routeUpdated: [RouteUpdatedEvent];
  connect: [ConnectEvent];
  disconnect: [DisconnectEvent];
}

/** What forwarding needs of a client: an `emit` taking these events. */
export interface InstanceEventTarget {
  emit<K extends keyof ClientInstanceEvents>(event: K, ...args: ClientInstanceEvents[K]): boolean;
}

/** The connection events alone: what a client without routes (Admin) forwards. */
export type ConnectionEvents = Pick<ClientInstanceEvents, 'connect' | 'disconnect'>;

export interface ConnectionEventTarget {
  emit<K extends keyof ConnectionEvents>(event: K, ...args: ConnectionEvents[K]): boolean;
}

/** Forwards the pool's 'connect' / 'disconnect' to `target` until the returned function is called. */
export function forwardConnectionEvents(pool: ConnectionPool, target: ConnectionEventTarget): () => void {
  const onConnect = (e: ConnectEvent): void => {
    target.emit('connect', e);
  };
  const onDisconnect = (e: DisconnectEvent): void => {
    target.emit('disconnect', e);
  };
  pool.on('connect', onConnect);
  pool.on('disconnect', onDisconnect);
  return () => {
    pool.off('connect', onConnect);
    pool.off('disconnect', onDisconnect);
  };
}

/** Forwards the instance's events to `target` until the returned function is called. */
export function forwardInstanceEvents(
  instance: ClientInstance,
  target: InstanceEventTarget,
  namespace: string | undefined,
): () => void {
  const onRoute = (e: RouteUpdatedEvent): void => {
    target.emit('routeUpdated', { ...e, topic: withoutNamespace(e.topic, namespace) });
  };
  instance.routes.on('routeUpdated', onRoute);
  const stopConnections = forwardConnectionEvents(instance.pool, target);
  return () => {
    instance.routes.off('routeUpdated', onRoute);
    stopConnections();
  };
}
