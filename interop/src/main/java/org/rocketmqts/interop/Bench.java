package org.rocketmqts.interop;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.LocalTransactionState;
import org.apache.rocketmq.client.producer.MessageQueueSelector;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.client.producer.TransactionListener;
import org.apache.rocketmq.client.producer.TransactionMQProducer;
import org.apache.rocketmq.client.producer.TransactionSendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageAccessor;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * N threads sharing one producer, each sending synchronously in a loop for a fixed time.
 * `--type NORMAL|FIFO|DELAY|TRANSACTION` sends the 5.x message type (bench/proxy.ts, through the
 * Proxy); `cpuUsPerMsg` is this JVM's CPU over the measured window per successful send.
 */
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
    String type = a.str("type", "NORMAL");
    if (!Arrays.asList("NORMAL", "FIFO", "DELAY", "TRANSACTION").contains(type))
      throw new IllegalArgumentException("--type: NORMAL, FIFO, DELAY or TRANSACTION, got " + type);

    DefaultMQProducer p = type.equals("TRANSACTION") ? transactionProducer(namesrv, group) : Produce.producer(namesrv, group);
    AtomicLong seq = new AtomicLong();
    byte[] body = new byte[size];
    Arrays.fill(body, (byte) 'x');
    AtomicLong failed = new AtomicLong();
    long[][] lat = new long[threads][];
    int[] counts = new int[threads];
    long cpuStart = 0;
    long cpuEnd = 0;
    try {
      // Creates the topic (TBW102 path) and fills route caches before measuring.
      // A fresh JVM's first send may time out on a loaded machine: three tries before giving up.
      for (int attempt = 1; ; attempt++) {
        try {
          if (send(p, type, topic, body, seq.getAndIncrement())) break;
          if (attempt == 3) throw new IllegalStateException("first send not SEND_OK");
        } catch (Exception e) {
          if (attempt == 3) throw e;
        }
        Thread.sleep(1000);
      }
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
              ok = send(p, type, topic, body, seq.getAndIncrement());
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
      long sleepMs = (warmEnd - System.nanoTime()) / 1_000_000L;
      if (sleepMs > 0) Thread.sleep(sleepMs);
      cpuStart = processCpuNanos();
      for (Thread t : ts) t.join();
      cpuEnd = processCpuNanos();
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
    out.put("type", type);
    out.put("cpuUsPerMsg", total == 0 ? null : (cpuEnd - cpuStart) / 1000.0 / total);
    return out;
  }

  /** FIFO messages spread over this many message groups, as bench/proxy.ts's Node clients do. */
  private static final int GROUPS = 16;

  private static final MessageQueueSelector BY_GROUP =
      (mqs, msg, arg) -> mqs.get(Math.floorMod(arg.hashCode(), mqs.size()));

  /** One send of `type`; the property names are MessageConst's (literal: 4.9.7 lacks the setters). */
  static boolean send(DefaultMQProducer p, String type, String topic, byte[] body, long n) throws Exception {
    Message m = new Message(topic, body);
    switch (type) {
      case "FIFO": {
        String messageGroup = "g" + (n % GROUPS);
        MessageAccessor.putProperty(m, "__SHARDINGKEY", messageGroup);
        return p.send(m, BY_GROUP, messageGroup).getSendStatus() == SendStatus.SEND_OK;
      }
      case "DELAY":
        // Due after the run, so the timer wheel's deliveries do not load the measurement.
        MessageAccessor.putProperty(m, "TIMER_DELAY_MS", "600000");
        break;
      case "TRANSACTION": {
        TransactionSendResult r = p.sendMessageInTransaction(m, null);
        return r.getSendStatus() == SendStatus.SEND_OK
            && r.getLocalTransactionState() == LocalTransactionState.COMMIT_MESSAGE;
      }
      default:
        break;
    }
    SendResult r = p.send(m);
    return r.getSendStatus() == SendStatus.SEND_OK;
  }

  static TransactionMQProducer transactionProducer(String namesrv, String group) throws Exception {
    TransactionMQProducer p = new TransactionMQProducer(group);
    p.setNamesrvAddr(namesrv);
    p.setVipChannelEnabled(false);
    p.setInstanceName(Driver.instanceName("producer"));
    p.setSendMsgTimeout(5000);
    p.setTransactionListener(
        new TransactionListener() {
          @Override
          public LocalTransactionState executeLocalTransaction(Message msg, Object arg) {
            return LocalTransactionState.COMMIT_MESSAGE;
          }

          @Override
          public LocalTransactionState checkLocalTransaction(MessageExt msg) {
            return LocalTransactionState.COMMIT_MESSAGE;
          }
        });
    p.start();
    return p;
  }

  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  static Double pct(long[] sorted, double p) {
    if (sorted.length == 0) return null;
    int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
    return Math.round(sorted[Math.max(0, i)] / 1e4) / 100.0;
  }
}
