package org.rocketmqts.interop;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/** N threads sharing one producer, each sending synchronously in a loop for a fixed time. */
final class Bench {
  private Bench() {}

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    int threads = (int) a.num("threads", 1L);
    int size = (int) a.num("size", 128L);
    long durationMs = a.num("duration-ms", 5000L);
    long warmupMs = a.num("warmup-ms", 1000L);
    String group = a.str("group", "interop_bench_" + ProcessHandle.current().pid());

    DefaultMQProducer p = Produce.producer(namesrv, group);
    byte[] body = new byte[size];
    Arrays.fill(body, (byte) 'x');
    AtomicLong failed = new AtomicLong();
    long[][] lat = new long[threads][];
    int[] counts = new int[threads];
    try {
      // Creates the topic (TBW102 path) and fills route caches before measuring.
      p.send(new Message(topic, body));
      long warmEnd = System.nanoTime() + warmupMs * 1_000_000L;
      long end = warmEnd + durationMs * 1_000_000L;
      Thread[] ts = new Thread[threads];
      for (int t = 0; t < threads; t++) {
        final int id = t;
        lat[id] = new long[1 << 16];
        ts[t] = new Thread(() -> {
          long[] mine = lat[id];
          int n = 0;
          while (true) {
            long s = System.nanoTime();
            if (s >= end) break;
            boolean ok;
            try {
              SendResult r = p.send(new Message(topic, body));
              ok = r.getSendStatus() == SendStatus.SEND_OK;
            } catch (Exception e) {
              ok = false;
            }
            long e = System.nanoTime();
            if (s < warmEnd) continue;
            if (!ok) {
              failed.incrementAndGet();
              continue;
            }
            if (n == mine.length) mine = Arrays.copyOf(mine, n * 2);
            mine[n++] = e - s;
          }
          lat[id] = mine;
          counts[id] = n;
        });
        ts[t].start();
      }
      for (Thread t : ts) t.join();
    } finally {
      p.shutdown();
    }
    int total = 0;
    for (int c : counts) total += c;
    long[] all = new long[total];
    int k = 0;
    for (int t = 0; t < threads; t++) {
      System.arraycopy(lat[t], 0, all, k, counts[t]);
      k += counts[t];
    }
    Arrays.sort(all);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("threads", threads);
    out.put("size", size);
    out.put("durationMs", durationMs);
    out.put("sent", total);
    out.put("failed", failed.get());
    out.put("msgsPerSec", Math.round(total * 1000.0 / durationMs));
    out.put("p50Ms", pct(all, 0.50));
    out.put("p99Ms", pct(all, 0.99));
    out.put("maxMs", total == 0 ? null : all[total - 1] / 1e6);
    return out;
  }

  static Double pct(long[] sorted, double p) {
    if (sorted.length == 0) return null;
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return Math.round(sorted[Math.max(0, i)] / 1e4) / 100.0;
  }
}
