/**
 * The deterministic message scheme shared with the Java driver
 * (interop/src/main/java/org/rocketmqts/interop/Deterministic.java; described in interop/README.md).
 * Every field of message `seq` is a pure function of `seq` and an optional fixed body size, so a
 * consumer can verify each message on its own.
 */

export const SEQ_PROPERTY = 'seq';
export const LEN_PROPERTY = 'p.len';
export const MOD_PROPERTY = 'p.mod5';
export const TEXT_PROPERTY = 'p.text';

export function detTags(seq: number): string {
  return `tag${seq % 3}`;
}

/** The two keys of message `seq`. */
export function detKeyList(seq: number): string[] {
  return [`key-${seq}`, `grp-${seq % 7}`];
}

/** KEYS property value: the keys joined by one space (Java `Message.setKeys(Collection)`). */
export function detKeys(seq: number): string {
  return detKeyList(seq).join(' ');
}

/** Body length: `size` when given (> 0), else 16..215 bytes. */
export function detBodyLength(seq: number, size = 0): number {
  return size > 0 ? size : 16 + ((seq * 37) % 200);
}

export function detBody(seq: number, size = 0): Buffer {
  const len = detBodyLength(seq, size);
  const b = Buffer.allocUnsafe(len);
  for (let i = 0; i < len; i++) b[i] = (seq * 31 + i * 7 + (i >> 8)) & 0xff;
  return b;
}

export function detUserProperties(seq: number, size = 0): Record<string, string> {
  return {
    [SEQ_PROPERTY]: String(seq),
    [LEN_PROPERTY]: String(detBodyLength(seq, size)),
    [MOD_PROPERTY]: String(seq % 5),
    [TEXT_PROPERTY]: `h\u00e9llo-\u4e16\u754c-${seq}`,
  };
}

/** Everything a producer needs for message `seq`. */
export function detMessage(
  seq: number,
  size = 0,
): { tags: string; keys: string[]; body: Buffer; properties: Record<string, string> } {
  return {
    tags: detTags(seq),
    keys: detKeyList(seq),
    body: detBody(seq, size),
    properties: detUserProperties(seq, size),
  };
}
