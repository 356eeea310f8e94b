/**
 * A consumer reacts at once when a broker group's master changes (a DLedger leader elected, a
 * master gone or back), instead of waiting up to `rebalanceInterval` (20 s) with queues held
 * but unpullable: every 'routeUpdated' of a subscribed topic is compared with the masters seen
 * last time (broker name → master address) and a change calls `onChange`.
 */
import type { EventEmitter } from 'node:events';
import type { RouteUpdatedEvent } from '../../client/route-lookup.js';

/** What the watcher needs from the route cache (client/route-lookup.ts `RouteLookup`). */
export interface MasterSource extends Pick<EventEmitter, 'on' | 'off'> {
  masterAddress(brokerName: string): string | undefined;
}

/** Masters of one route: sorted `brokerName=address` pairs. */
function mastersOf(source: MasterSource, event: RouteUpdatedEvent): string {
  return event.brokers
    .map((name) => `${name}=${source.masterAddress(name) ?? ''}`)
    .sort()
    .join(',');
}

/**
 * Calls `onChange(topic)` when the masters of a topic `subscribed` accepts change (not on its
 * first route). Returns the function that stops watching.
 */
export function watchMasterChanges(
  source: MasterSource,
  subscribed: (topic: string) => boolean,
  onChange: (topic: string) => void,
): () => void {
  const last = new Map<string, string>();
  const listener = (event: RouteUpdatedEvent): void => {
    if (!subscribed(event.topic)) return;
    const masters = mastersOf(source, event);
    const before = last.get(event.topic);
    last.set(event.topic, masters);
    if (before !== undefined && before !== masters) onChange(event.topic);
  };
  source.on('routeUpdated', listener);
  return () => source.off('routeUpdated', listener);
}
