package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The deterministic message scheme shared with interop-test/deterministic.ts (documented in
 * interop/README.md). Every field of message number {@code seq} is a pure function of seq and,
 * for the body, of an optional fixed body size.
 */
final class Deterministic {
  private Deterministic() {}

  /** User property carrying the sequence number. */
  static final String SEQ = "seq";
  /** User property carrying the body length in bytes. */
  static final String LEN = "p.len";
  static final String MOD = "p.mod5";
  static final String TEXT = "p.text";

  static String tags(long seq) {
    return "tag" + (seq % 3);
  }

  /** Two keys, joined by one space as Java's Message.setKeys(Collection) does. */
  static String keys(long seq) {
    return "key-" + seq + " grp-" + (seq % 7);
  }

  /** Default body length when no size is given: 16..215 bytes. */
  static int bodyLength(long seq, int size) {
    return size > 0 ? size : 16 + (int) ((seq * 37) % 200);
  }

  static byte[] body(long seq, int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) ((seq * 31 + (long) i * 7 + (i >> 8)) & 0xff);
    }
    return b;
  }

  static Map<String, String> userProperties(long seq, int length) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put(SEQ, Long.toString(seq));
    p.put(LEN, Integer.toString(length));
    p.put(MOD, Long.toString(seq % 5));
    p.put(TEXT, "h\u00e9llo-\u4e16\u754c-" + seq);
    return p;
  }

  static String hex(byte[] b, int max) {
    StringBuilder sb = new StringBuilder();
    int n = Math.min(b.length, max);
    for (int i = 0; i < n; i++) {
      sb.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
    }
    return sb.toString();
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
