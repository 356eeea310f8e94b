/**
 * A consumer's share of the client core, the same for the push and the lite pull consumer: its
 * client id, taking the shared ClientInstance and registering the group in it (one consumer per
 * group per client), its offset store (broker for CLUSTERING, local file for BROADCASTING), and
 * the release at shutdown (heartbeat entry, UNREGISTER_CLIENT, route pins, instance).
 */
import { IllegalStateError } from '../../errors.js';
import { localClientIp } from '../../client/client-id.js';
import type { ClientInstance } from '../../client/client-instance.js';
import type { HeartbeatContributor } from '../../client/heartbeat.js';
import { clientIdOf, clientInstanceConfig } from '../../client/client-options.js';
import type { ConsumerData, SubscriptionData } from '../../protocol/headers/heartbeat.js';
import { acquireClientInstance, releaseClientInstance } from '../../client/instance-registry.js';
import { registerConsumer, unregisterConsumer, type RegisteredConsumer } from '../push/broker-requests.js';
import { consumerClientOf, type ConsumerClient } from './client-port.js';
import { LocalFileOffsetStore } from '../offset-store/local-file.js';
import type { OffsetStore } from '../offset-store/offset-store.js';
import { RemoteBrokerOffsetStore } from '../offset-store/remote-broker.js';
import type { ResolvedPushConsumerOptions } from '../push/options.js';

/** `clientIP@instanceName[@unitName]`; broadcasting keeps `DEFAULT` so the offset file survives restarts (§2.8). */
export function consumerClientId(o: ResolvedPushConsumerOptions): string {
  if (o.messageModel !== 'BROADCASTING') return clientIdOf(o);
  return `${o.clientIP ?? localClientIp()}@${o.instanceName}${o.unitName ? `@${o.unitName}` : ''}`;
}

/** What a consumer's heartbeat says of its group: push is CONSUME_PASSIVELY, lite pull CONSUME_ACTIVELY. */
export function consumerData(
  o: ResolvedPushConsumerOptions,
  wireGroup: string,
  consumeType: ConsumerData['consumeType'],
  subscriptions: SubscriptionData[],
): ConsumerData {
  return {
    groupName: wireGroup,
    consumeType,
    messageModel: o.messageModel,
    consumeFromWhere: o.consumeFromWhere,
    subscriptionDataSet: subscriptions,
    unitMode: o.unitMode,
  };
}

/** Takes the shared instance and registers the group; IllegalStateError when the group already runs in it. */
export async function openConsumerInstance(
  o: ResolvedPushConsumerOptions,
  clientId: string,
  wireGroup: string,
  consumer: RegisteredConsumer,
): Promise<{ instance: ClientInstance; client: ConsumerClient }> {
  const instance = acquireClientInstance(clientInstanceConfig(o, clientId));
  if (!registerConsumer(instance, wireGroup, consumer)) {
    await releaseClientInstance(instance);
    throw new IllegalStateError(
      `consumer group ${o.consumerGroup} is already started in client ${clientId}; use another instanceName`,
    );
  }
  return { instance, client: consumerClientOf(instance, o.mqClientApiTimeout) };
}

/** The offset store of the message model, loaded. */
export async function openOffsetStore(
  o: ResolvedPushConsumerOptions,
  client: ConsumerClient,
  clientId: string,
  wireGroup: string,
): Promise<OffsetStore> {
  const store: OffsetStore =
    o.messageModel === 'CLUSTERING'
      ? new RemoteBrokerOffsetStore(client, wireGroup, o.mqClientApiTimeout, o.logger)
      : new LocalFileOffsetStore({
          clientId,
          consumerGroup: wireGroup,
          logger: o.logger,
          ...(o.offsetStoreDir === undefined ? {} : { localOffsetStoreDir: o.offsetStoreDir }),
        });
  await store.load();
  return store;
}

/** Shutdown's last step: heartbeat entry removed (UNREGISTER_CLIENT), group unregistered, pins and instance released. */
export async function closeConsumerInstance(
  instance: ClientInstance,
  contributor: HeartbeatContributor,
  wireGroup: string,
  consumer: RegisteredConsumer,
  pinnedTopics: Iterable<string>,
): Promise<void> {
  await instance.heartbeat.unregister(contributor);
  unregisterConsumer(instance, wireGroup, consumer);
  for (const topic of pinnedTopics) instance.routes.unpin(topic);
  await releaseClientInstance(instance);
}
