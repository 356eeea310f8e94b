/**
 * Java `String.hashCode()` over UTF-16 code units, as a signed int32. RocketMQ uses it for the
 * tagsCode of consume-queue entries and for the codeSet of tag subscriptions, so client, broker
 * and store must agree on it bit for bit.
 */
export function javaStringHashCode(s: string): number {
  return continueJavaStringHash(0, s);
}

/**
 * The hash of `a + s` from `h` = the hash of `a`: a prefix shared by many strings (the store's
 * `topic#`) is hashed once.
 */
export function continueJavaStringHash(h: number, s: string): number {
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}
