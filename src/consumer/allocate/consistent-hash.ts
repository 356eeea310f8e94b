/**
 * Java `AllocateMessageQueueConsistentHash` (`CONSISTENT_HASH`) over `ConsistentHashRouter`:
 * each client id puts `virtualNodeCount` nodes `cid-i` on a ring; a queue goes to the first node
 * at or after the hash of its Java `MessageQueue#toString`, wrapping to the lowest node. The hash
 * is the first 4 bytes of MD5 as an unsigned big-endian number, so Java and TypeScript consumers
 * of one group compute the same ring.
 */
import { createHash } from 'node:crypto';
import type { MessageQueue } from '../../client/route.js';
import type { AllocateContext, AllocateStrategy } from './types.js';

/** Java's default virtual node count. */
export const DEFAULT_VIRTUAL_NODE_COUNT = 10;

/** `ConsistentHashRouter.MD5Hash#hash`; Java hashes `String#getBytes()` (UTF-8 on every JVM we meet). */
export function md5Hash32(key: string): number {
  return createHash('md5').update(key, 'utf8').digest().readUInt32BE(0);
}

/** Java `MessageQueue#toString`, the key a queue is routed by. */
export function messageQueueToString(mq: MessageQueue): string {
  return `MessageQueue [topic=${mq.topic}, brokerName=${mq.brokerName}, queueId=${mq.queueId}]`;
}

interface Ring {
  hashes: number[];
  owners: string[];
}

function buildRing(cidAll: readonly string[], virtualNodeCount: number): Ring {
  // A TreeMap keyed by hash: a later node with an equal hash replaces the earlier one.
  const byHash = new Map<number, string>();
  // `getExistingReplicas`: a client id listed twice continues its replica numbering.
  const replicas = new Map<string, number>();
  for (const cid of cidAll) {
    const existing = replicas.get(cid) ?? 0;
    for (let i = 0; i < virtualNodeCount; i++) byHash.set(md5Hash32(`${cid}-${i + existing}`), cid);
    replicas.set(cid, existing + virtualNodeCount);
  }
  const hashes = [...byHash.keys()].sort((a, b) => a - b);
  return { hashes, owners: hashes.map((h) => byHash.get(h)!) };
}

/** `ring.tailMap(hash).firstKey()`, else `ring.firstKey()`. */
function route(ring: Ring, hash: number): string | undefined {
  let lo = 0;
  let hi = ring.hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ring.hashes[mid]! < hash) lo = mid + 1;
    else hi = mid;
  }
  return ring.owners[lo < ring.owners.length ? lo : 0];
}

export function consistentHashStrategy(virtualNodeCount = DEFAULT_VIRTUAL_NODE_COUNT): AllocateStrategy {
  return ({ currentCID, mqAll, cidAll }: AllocateContext): MessageQueue[] => {
    const ring = buildRing(cidAll, virtualNodeCount);
    return mqAll.filter((mq) => route(ring, md5Hash32(messageQueueToString(mq))) === currentCID);
  };
}
