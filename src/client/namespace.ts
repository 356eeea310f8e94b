/**
 * Namespaces (Java `NamespaceUtil`): a resource `R` in namespace `NS` is `NS%R` on the wire;
 * retry and DLQ prefixes stay in front (`%RETRY%NS%R`), system topics and groups are never
 * wrapped, and an already wrapped name is left alone.
 */
import { DEFAULT_TOPIC, isSystemTopic } from '../protocol/validation.js';

export const NAMESPACE_SEPARATOR = '%';
export const RETRY_PREFIX = '%RETRY%';
export const DLQ_PREFIX = '%DLQ%';
const SYS_CONSUMER_GROUP_PREFIX = 'CID_RMQ_SYS_';

function isSystemResource(resource: string): boolean {
  return (
    resource === DEFAULT_TOPIC || isSystemTopic(resource) || resource.startsWith(SYS_CONSUMER_GROUP_PREFIX)
  );
}

function stripRetryAndDlq(resource: string): { prefix: string; rest: string } {
  if (resource.startsWith(RETRY_PREFIX))
    return { prefix: RETRY_PREFIX, rest: resource.slice(RETRY_PREFIX.length) };
  if (resource.startsWith(DLQ_PREFIX)) return { prefix: DLQ_PREFIX, rest: resource.slice(DLQ_PREFIX.length) };
  return { prefix: '', rest: resource };
}

export function isAlreadyWithNamespace(resource: string, namespace: string | undefined): boolean {
  if (!namespace || !resource || isSystemResource(resource)) return false;
  return stripRetryAndDlq(resource).rest.startsWith(namespace + NAMESPACE_SEPARATOR);
}

/** `T` → `NS%T`, `%RETRY%G` → `%RETRY%NS%G`; no-op without a namespace. */
export function wrapNamespace(namespace: string | undefined, resource: string): string {
  if (!namespace || !resource) return resource;
  if (isSystemResource(resource) || isAlreadyWithNamespace(resource, namespace)) return resource;
  const { prefix, rest } = stripRetryAndDlq(resource);
  return prefix + namespace + NAMESPACE_SEPARATOR + rest;
}

/** Inverse of `wrapNamespace` for this namespace; names of other namespaces are left alone. */
export function withoutNamespace(resource: string, namespace: string | undefined): string {
  if (!namespace || !resource || isSystemResource(resource)) return resource;
  const { prefix, rest } = stripRetryAndDlq(resource);
  const head = namespace + NAMESPACE_SEPARATOR;
  return rest.startsWith(head) ? prefix + rest.slice(head.length) : resource;
}
