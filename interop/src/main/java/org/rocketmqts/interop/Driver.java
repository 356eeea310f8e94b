package org.rocketmqts.interop;

import java.io.PrintStream;
import java.io.UnsupportedEncodingException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Command-line entry point for the interop tests. Every command prints exactly one JSON line on
 * stdout (its result); everything else goes to stderr.
 *
 * <pre>
 * produce --namesrv A --topic T --count N [--start S] [--batch B] [--group G] [--size BYTES]
 * consume --namesrv A --topic T --group G --expect N [--start S] [--timeout-ms M]
 *         [--verify deterministic|none] [--size BYTES] [--settle-ms M] [--report K]
 * bench   --namesrv A --topic T --threads N --size B --duration-ms D [--warmup-ms W]
 * admin   clusterList|topicRoute --namesrv A [--topic T]
 * push    --namesrv A --topics T1,T2 --group G [--duration-ms D] [--from first|last]
 *         [--expression E | --sql S] [--threads N] [--max-messages K] [--orderly true]
 * drain   --namesrv A --topic T --group G --expect N [--threads 20] [--timeout-ms M]
 * request --namesrv A --topic T --count N [--timeout-ms M] [--group G]
 * respond --namesrv A --topic T --group G --count N [--timeout-ms M]
 * select  --namesrv A --topic T --keys k1,k2,...
 * send5 | recall ...   (5.x only: see V5 in interop/src/v5/java)
 * </pre>
 */
public final class Driver {
  private Driver() {}

  static PrintStream result;

  public static void main(String[] args) throws Exception {
    result = new PrintStream(System.out, true, "UTF-8");
    // Libraries sometimes print to stdout; keep stdout for the one result line.
    System.setOut(new PrintStream(System.err, true, "UTF-8"));
    int code;
    try {
      code = run(args);
    } catch (Throwable t) {
      t.printStackTrace(System.err);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("error", String.valueOf(t));
      emit(out);
      code = 2;
    }
    System.exit(code);
  }

  static void emit(Map<String, Object> out) {
    result.println(Json.write(out));
    result.flush();
  }

  private static int run(String[] args) throws Exception {
    if (args.length == 0) throw new IllegalArgumentException("usage: produce|consume|bench|push|drain|admin ...");
    String cmd = args[0];
    switch (cmd) {
      case "produce":
        emit(Produce.run(new Args(args, 1)));
        return 0;
      case "consume":
        emit(Consume.run(new Args(args, 1)));
        return 0;
      case "bench":
        emit(Bench.run(new Args(args, 1)));
        return 0;
      case "push":
        emit(Push.run(new Args(args, 1)));
        return 0;
      case "drain":
        emit(Drain.run(new Args(args, 1)));
        return 0;
      case "request":
        emit(RequestReply.request(new Driver.Args(args, 1)));
        return 0;
      case "select":
        emit(Select.run(new Driver.Args(args, 1)));
        return 0;
      case "respond":
        emit(RequestReply.respond(new Driver.Args(args, 1)));
        return 0;
      case "send5":
      case "recall":
      case "topicConfig":
      case "pushPop":
        emit(v5(cmd, new Args(args, 1)));
        return 0;
      case "admin":
        if (args.length < 2) throw new IllegalArgumentException("admin clusterList|topicRoute");
        emit(Admin.run(args[1], new Args(args, 2)));
        return 0;
      default:
        throw new IllegalArgumentException("unknown command " + cmd);
    }
  }

  /**
   * The 5.x-only commands live in a source tree only interop/v5 compiles (the 4.9.7 client has no
   * priority, timer or recall API), so they are looked up at run time.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> v5(String cmd, Args a) throws Exception {
    Class<?> c;
    try {
      c = Class.forName("org.rocketmqts.interop.V5");
    } catch (ClassNotFoundException e) {
      throw new IllegalArgumentException(cmd + " needs the RocketMQ 5.x driver (interop/v5)");
    }
    java.lang.reflect.Method m = c.getDeclaredMethod("run", String.class, Args.class);
    m.setAccessible(true);
    try {
      return (Map<String, Object>) m.invoke(null, cmd, a);
    } catch (java.lang.reflect.InvocationTargetException e) {
      Throwable t = e.getCause();
      if (t instanceof Exception) throw (Exception) t;
      throw e;
    }
  }

  /** A unique instance name per client so two drivers never share a client instance. */
  static String instanceName(String role) {
    return "interop-" + role + "-" + ManagementFactory.getRuntimeMXBean().getName().replace('@', '-')
        + "-" + System.nanoTime();
  }

  /** --key value pairs. */
  static final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args, int from) {
      for (int i = from; i < args.length; i++) {
        String a = args[i];
        if (!a.startsWith("--")) throw new IllegalArgumentException("unexpected argument " + a);
        if (i + 1 >= args.length) throw new IllegalArgumentException("missing value for " + a);
        values.put(a.substring(2), args[++i]);
      }
    }

    String str(String name, String def) {
      String v = values.get(name);
      if (v == null && def == null) throw new IllegalArgumentException("--" + name + " is required");
      return v == null ? def : v;
    }

    String str(String name) {
      return str(name, null);
    }

    long num(String name, Long def) {
      String v = values.get(name);
      if (v == null) {
        if (def == null) throw new IllegalArgumentException("--" + name + " is required");
        return def;
      }
      return Long.parseLong(v);
    }
  }

  static List<Object> limited(List<?> list, int max) {
    List<Object> out = new ArrayList<>();
    for (int i = 0; i < list.size() && i < max; i++) out.add(list.get(i));
    return out;
  }

  static String utf8(byte[] b) {
    try {
      return new String(b, "UTF-8");
    } catch (UnsupportedEncodingException e) {
      throw new IllegalStateException(e);
    }
  }
}
