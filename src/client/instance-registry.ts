/**
 * Which producers share a ClientInstance. The pitfall Java has: it keys its instances on the
 * clientId alone, so two producers in one process aimed at two clusters (same IP, default
 * instance name) share one instance and the second uses the first one's NameServer. Here the
 * key is the clientId **plus** the normalized NameServer set, the namespace and every setting
 * the instance itself uses (createTopicKey and defaultTopicQueueNums included: the cached
 * auto-create route is built from them), so that cannot happen; producers with identical
 * settings still share connections and routes. The logger is not part of the key: instance-level
 * events go to the logger of the producer that created the instance (see ClientInstanceConfig).
 */
import { ClientInstance, type ClientInstanceConfig } from './client-instance.js';
import { connectionKey } from './connection-options.js';

interface Slot {
  instance: ClientInstance;
  refs: number;
}

const slots = new Map<string, Slot>();

export function instanceKey(c: ClientInstanceConfig): string {
  return JSON.stringify([
    c.clientId,
    [...c.namesrvAddr].sort(),
    c.namespace ?? '',
    c.language,
    c.mqClientApiTimeout,
    c.pollNameServerInterval,
    c.heartbeatBrokerInterval,
    c.createTopicKey,
    c.defaultTopicQueueNums,
    connectionKey(c.connection),
  ]);
}

/** The shared instance for these settings (created and started on first use). */
export function acquireClientInstance(config: ClientInstanceConfig): ClientInstance {
  const key = instanceKey(config);
  let slot = slots.get(key);
  if (slot === undefined) {
    slot = { instance: new ClientInstance(config), refs: 0 };
    slots.set(key, slot);
  }
  slot.refs++;
  slot.instance.start();
  return slot.instance;
}

/** Drops one reference; the last one shuts the instance down. */
export async function releaseClientInstance(instance: ClientInstance): Promise<void> {
  for (const [key, slot] of slots) {
    if (slot.instance !== instance) continue;
    slot.refs--;
    if (slot.refs <= 0) {
      slots.delete(key);
      await instance.shutdown();
    }
    return;
  }
}

/** The live instances (for tests and diagnostics). */
export function clientInstances(): ClientInstance[] {
  return [...slots.values()].map((s) => s.instance);
}

/** Number of live instances (for tests and diagnostics). */
export function clientInstanceCount(): number {
  return slots.size;
}
