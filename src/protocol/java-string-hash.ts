/**
 * Java `String.hashCode()` over UTF-16 code units, as a signed int32. RocketMQ uses it for the
 * tagsCode of consume-queue entries and for the codeSet of tag subscriptions, so client, broker
 * and store must agree on it bit for bit. `seed` continues a hash: the hash of `a + b` is
 * `javaStringHashCode(b, javaStringHashCode(a))`.
 */
export function javaStringHashCode(s: string, seed = 0): number {
  let h = seed;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}
