package org.rocketmqts.interop;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;

/**
 * Consumer benchmark: a new group drains a backlog of N messages from the first offset with the
 * Java push consumer's defaults (20 consume threads). Reports msgs/s from the first to the last
 * message and the process CPU time spent while draining (JVM start-up excluded).
 */
final class Drain {
  private Drain() {}

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    String group = a.str("group");
    long expect = a.num("expect", null);
    int threads = (int) a.num("threads", 20L);
    long timeoutMs = a.num("timeout-ms", 300000L);

    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    AtomicLong count = new AtomicLong();
    AtomicLong firstNs = new AtomicLong();
    AtomicLong lastNs = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    Object done = new Object();

    DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
    c.setNamesrvAddr(namesrv);
    c.setVipChannelEnabled(false);
    c.setInstanceName(Driver.instanceName("drain"));
    c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.setConsumeThreadMin(threads);
    c.setConsumeThreadMax(threads);
    c.subscribe(topic, "*");
    c.registerMessageListener(
        (MessageListenerConcurrently)
            (msgs, ctx) -> {
              long now = System.nanoTime();
              firstNs.compareAndSet(0, now);
              for (int i = 0; i < msgs.size(); i++) bytes.addAndGet(msgs.get(i).getBody().length);
              long n = count.addAndGet(msgs.size());
              if (n >= expect) {
                lastNs.compareAndSet(0, now);
                synchronized (done) {
                  done.notifyAll();
                }
              }
              return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
    long cpu0 = os.getProcessCpuTime();
    long wall0 = System.nanoTime();
    c.start();
    long deadline = System.currentTimeMillis() + timeoutMs;
    synchronized (done) {
      while (lastNs.get() == 0 && System.currentTimeMillis() < deadline) done.wait(100);
    }
    long cpu1 = os.getProcessCpuTime();
    long wall1 = System.nanoTime();
    c.shutdown();
    long received = count.get();
    double seconds = (lastNs.get() > 0 ? lastNs.get() - firstNs.get() : wall1 - firstNs.get()) / 1e9;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("client", "java");
    out.put("received", received);
    out.put("bytes", bytes.get());
    out.put("complete", received >= expect);
    out.put("firstToLastMs", Math.round(seconds * 1000));
    out.put("msgsPerSec", seconds > 0 ? Math.round(received / seconds) : 0);
    out.put("cpuMs", (cpu1 - cpu0) / 1_000_000L);
    out.put("wallMs", (wall1 - wall0) / 1_000_000L);
    out.put("cpuUsPerMsg", received > 0 ? (cpu1 - cpu0) / 1000.0 / received : 0);
    return out;
  }
}
