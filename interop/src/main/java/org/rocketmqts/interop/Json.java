package org.rocketmqts.interop;

import java.util.Collection;
import java.util.Map;

/** A tiny JSON writer, so the driver needs nothing beyond the RocketMQ jars. */
final class Json {
  private Json() {}

  static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    append(sb, v);
    return sb.toString();
  }

  @SuppressWarnings("unchecked")
  static void append(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      string(sb, (String) v);
    } else if (v instanceof Number || v instanceof Boolean) {
      if (v instanceof Double && (((Double) v).isNaN() || ((Double) v).isInfinite())) sb.append("null");
      else sb.append(v);
    } else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<Object, Object> e : ((Map<Object, Object>) v).entrySet()) {
        if (!first) sb.append(',');
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(':');
        append(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof Collection) {
      sb.append('[');
      boolean first = true;
      for (Object o : (Collection<Object>) v) {
        if (!first) sb.append(',');
        first = false;
        append(sb, o);
      }
      sb.append(']');
    } else {
      string(sb, v.toString());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          sb.append("\\\"");
          break;
        case '\\':
          sb.append("\\\\");
          break;
        case '\n':
          sb.append("\\n");
          break;
        case '\r':
          sb.append("\\r");
          break;
        case '\t':
          sb.append("\\t");
          break;
        default:
          if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
          else sb.append(c);
      }
    }
    sb.append('"');
  }
}
