package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * RocketMQ 5.x-only driver commands (compiled by interop/v5 only; Driver reaches them by
 * reflection so the 4.9.7 build never sees them).
 *
 * <pre>
 * send5  --namesrv A --topic T --kind fifo|priority|timer --count N [--groups G] [--levels L]
 *        [--delay-ms D] [--group PG]
 * recall --namesrv A --topic T --handle H [--group PG]
 * topicConfig --namesrv A --broker ADDR --topic T
 * pushPop --namesrv A --topic T --group G [--duration-ms D] [--expect N] [--threads N]
 * </pre>
 */
final class V5 {
  private V5() {}

  static Map<String, Object> run(String cmd, Driver.Args a) throws Exception {
    switch (cmd) {
      case "send5":
        return send(a);
      case "recall":
        return recall(a);
      case "topicConfig":
        return topicConfig(a);
      case "pushPop":
        return pushPop(a);
      default:
        throw new IllegalArgumentException("unknown 5.x command " + cmd);
    }
  }

  /**
   * Message i: body {@code java-<kind>-<i>}, user property {@code seq}. FIFO: message group
   * {@code g<i % groups>} in {@code __SHARDINGKEY} (the 5.x remoting client has no message-group
   * field; the Proxy and gRPC clients read this property) and the queue picked by hash of the
   * group, as an ordered sender does. Priority: {@code setPriority(i % levels)}. Timer:
   * {@code setDelayTimeMs(delay)}; the send result's recall handle is reported.
   */
  static Map<String, Object> send(Driver.Args a) throws Exception {
    String topic = a.str("topic");
    String kind = a.str("kind");
    long count = a.num("count", null);
    int groups = (int) a.num("groups", 2L);
    int levels = (int) a.num("levels", 4L);
    long delayMs = a.num("delay-ms", 60000L);
    DefaultMQProducer p = Produce.producer(a.str("namesrv"), a.str("group", "interop_pg5_" + ProcessHandle.current().pid()));
    List<Map<String, Object>> sent = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    try {
      for (long i = 0; i < count; i++) {
        Message m = new Message(topic, "java5", ("java-" + kind + "-" + i).getBytes(StandardCharsets.UTF_8));
        m.putUserProperty("seq", String.valueOf(i));
        try {
          SendResult r;
          switch (kind) {
            case "fifo":
              String g = "g" + (i % groups);
              m.putUserProperty(MessageConst.PROPERTY_SHARDING_KEY, g);
              r = p.send(m, new SelectMessageQueueByHash(), g);
              break;
            case "priority":
              m.setPriority((int) (i % levels));
              r = p.send(m);
              break;
            case "timer":
              m.setDelayTimeMs(delayMs);
              r = p.send(m);
              break;
            default:
              throw new IllegalArgumentException("--kind fifo|priority|timer");
          }
          Map<String, Object> s = new LinkedHashMap<>();
          s.put("seq", i);
          s.put("status", r.getSendStatus().name());
          s.put("msgId", r.getMsgId());
          s.put("brokerName", r.getMessageQueue().getBrokerName());
          s.put("queueId", r.getMessageQueue().getQueueId());
          s.put("recallHandle", r.getRecallHandle());
          sent.add(s);
        } catch (Exception e) {
          if (errors.size() < 10) errors.add("seq " + i + ": " + e);
        }
      }
    } finally {
      p.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sent", sent);
    out.put("errors", errors);
    return out;
  }

  /** {@code DefaultMQProducer.recallMessage}: {@code {msgId}}, or {@code {error, code}} when refused. */
  static Map<String, Object> recall(Driver.Args a) throws Exception {
    DefaultMQProducer p = Produce.producer(a.str("namesrv"), a.str("group", "interop_pg5_" + ProcessHandle.current().pid()));
    Map<String, Object> out = new LinkedHashMap<>();
    try {
      out.put("msgId", p.recallMessage(a.str("topic"), a.str("handle")));
    } catch (MQBrokerException e) {
      out.put("error", String.valueOf(e));
      out.put("code", e.getResponseCode());
    } catch (Exception e) {
      out.put("error", String.valueOf(e));
    } finally {
      p.shutdown();
    }
    return out;
  }

  /** {@code DefaultMQAdminExt.examineTopicConfig} at one broker: queues, order and attributes. */
  static Map<String, Object> topicConfig(Driver.Args a) throws Exception {
    DefaultMQAdminExt admin = new DefaultMQAdminExt(5000);
    admin.setNamesrvAddr(a.str("namesrv"));
    admin.setVipChannelEnabled(false);
    admin.setInstanceName(Driver.instanceName("admin5"));
    admin.setAdminExtGroup("interop_admin5_" + ProcessHandle.current().pid());
    admin.start();
    try {
      TopicConfig c = admin.examineTopicConfig(a.str("broker"), a.str("topic"));
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("topicName", c.getTopicName());
      out.put("readQueueNums", c.getReadQueueNums());
      out.put("writeQueueNums", c.getWriteQueueNums());
      out.put("order", c.isOrder());
      out.put("attributes", new java.util.TreeMap<>(c.getAttributes()));
      return out;
    } finally {
      admin.shutdown();
    }
  }

  /**
   * A {@code DefaultMQPushConsumer} with {@code setClientRebalance(false)}: the broker assigns its
   * queues and, for a group in POP mode, it pops them. Runs for {@code duration-ms}, or until
   * {@code expect} distinct messages arrived; reports what it consumed, msgs/s from the first
   * message to the last and the process CPU spent meanwhile.
   */
  static Map<String, Object> pushPop(Driver.Args a) throws Exception {
    String group = a.str("group");
    long durationMs = a.num("duration-ms", 60000L);
    long expect = a.num("expect", Long.MAX_VALUE);
    int threads = (int) a.num("threads", 20L);
    boolean record = Boolean.parseBoolean(a.str("record", "true"));
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.ConcurrentLinkedQueue<Map<String, Object>> consumed = new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicLong firstNs = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong lastNs = new java.util.concurrent.atomic.AtomicLong();
    java.util.concurrent.atomic.AtomicLong deliveries = new java.util.concurrent.atomic.AtomicLong();
    Object done = new Object();
    org.apache.rocketmq.client.consumer.DefaultMQPushConsumer c =
        new org.apache.rocketmq.client.consumer.DefaultMQPushConsumer(group);
    c.setNamesrvAddr(a.str("namesrv"));
    c.setVipChannelEnabled(false);
    c.setInstanceName(Driver.instanceName("pushPop"));
    c.setClientRebalance(false);
    c.setConsumeFromWhere(org.apache.rocketmq.common.consumer.ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.setConsumeThreadMin(Math.min(threads, 20));
    c.setConsumeThreadMax(threads);
    c.subscribe(a.str("topic"), "*");
    c.registerMessageListener(
        (org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently)
            (msgs, ctx) -> {
              long now = System.nanoTime();
              firstNs.compareAndSet(0, now);
              deliveries.addAndGet(msgs.size());
              for (org.apache.rocketmq.common.message.MessageExt m : msgs) {
                String key = m.getBrokerName() + "/" + m.getQueueId() + "/" + m.getQueueOffset();
                if (seen.add(key) && record) {
                  Map<String, Object> e = new LinkedHashMap<>();
                  e.put("msgId", m.getMsgId());
                  e.put("topic", m.getTopic());
                  e.put("queueId", m.getQueueId());
                  e.put("queueOffset", m.getQueueOffset());
                  e.put("body", new String(m.getBody(), StandardCharsets.UTF_8));
                  consumed.add(e);
                }
              }
              if (seen.size() >= expect) {
                lastNs.compareAndSet(0, now);
                synchronized (done) {
                  done.notifyAll();
                }
              }
              return org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
    long cpu0 = os.getProcessCpuTime();
    c.start();
    long deadline = System.currentTimeMillis() + durationMs;
    synchronized (done) {
      while (lastNs.get() == 0 && System.currentTimeMillis() < deadline) done.wait(100);
    }
    long cpu1 = os.getProcessCpuTime();
    long end = lastNs.get() > 0 ? lastNs.get() : System.nanoTime();
    c.shutdown();
    long received = seen.size();
    double seconds = firstNs.get() == 0 ? 0 : (end - firstNs.get()) / 1e9;
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("client", "java-pop-push");
    out.put("clientId", c.buildMQClientId());
    out.put("received", received);
    out.put("deliveries", deliveries.get());
    out.put("complete", received >= expect);
    out.put("msgsPerSec", seconds > 0 ? Math.round(received / seconds) : 0);
    out.put("cpuUsPerMsg", received > 0 ? (cpu1 - cpu0) / 1000.0 / received : 0);
    out.put("messages", new ArrayList<>(consumed));
    return out;
  }
}
