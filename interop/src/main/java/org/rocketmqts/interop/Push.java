package org.rocketmqts.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.MessageSelector;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.ConsumeOrderlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.consumer.listener.MessageListenerOrderly;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

/**
 * A plain push consumer that joins a group on some topics for a fixed time and reports what it
 * consumed (msgId, queue, offset) and which queues the rebalance gave it, as a timeline of
 * allocation changes (epoch ms) so a test can compare it with another member of the same group.
 */
final class Push {
  private Push() {}

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String[] topics = a.str("topics").split(",");
    String group = a.str("group");
    long durationMs = a.num("duration-ms", 10000L);
    String from = a.str("from", "first");
    String expression = a.str("expression", "*");
    String sql = a.str("sql", "");
    int threads = (int) a.num("threads", 20L);
    int max = (int) a.num("max-messages", 100000L);
    // Orderly: one thread per queue at a time, in queue order (MessageListenerOrderly), so the
    // recorded order per queue is the delivery order.
    boolean orderly = Boolean.parseBoolean(a.str("orderly", "false"));

    ConcurrentLinkedQueue<Map<String, Object>> consumed = new ConcurrentLinkedQueue<>();
    AtomicLong total = new AtomicLong();
    DefaultMQPushConsumer c = new DefaultMQPushConsumer(group);
    c.setNamesrvAddr(namesrv);
    c.setVipChannelEnabled(false);
    c.setInstanceName(Driver.instanceName("push"));
    c.setConsumeFromWhere(
        "last".equals(from) ? ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET : ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.setPollNameServerInterval(1000);
    c.setHeartbeatBrokerInterval(2000);
    c.setPersistConsumerOffsetInterval(1000);
    c.setConsumeThreadMin(Math.min(threads, 20));
    c.setConsumeThreadMax(threads);
    for (String t : topics) {
      if (!sql.isEmpty()) c.subscribe(t, MessageSelector.bySql(sql));
      else c.subscribe(t, expression);
    }
    java.util.function.Consumer<List<MessageExt>> record =
        msgs -> {
          for (MessageExt m : msgs) {
            if (total.incrementAndGet() > max) continue;
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("msgId", m.getMsgId());
            s.put("topic", m.getTopic());
            s.put("brokerName", m.getBrokerName());
            s.put("queueId", m.getQueueId());
            s.put("queueOffset", m.getQueueOffset());
            s.put("reconsumeTimes", m.getReconsumeTimes());
            s.put("properties", new java.util.TreeMap<>(m.getProperties()));
            s.put("body", Driver.utf8(m.getBody()));
            s.put("atMs", System.currentTimeMillis());
            consumed.add(s);
          }
        };
    if (orderly) {
      c.registerMessageListener(
          (MessageListenerOrderly)
              (msgs, ctx) -> {
                record.accept(msgs);
                return ConsumeOrderlyStatus.SUCCESS;
              });
    } else {
      c.registerMessageListener(
          (MessageListenerConcurrently)
              (msgs, ctx) -> {
                record.accept(msgs);
                return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
              });
    }

    List<Map<String, Object>> timeline = new ArrayList<>();
    long t0 = System.currentTimeMillis();
    c.start();
    Set<String> last = null;
    try {
      long deadline = t0 + durationMs;
      while (true) {
        Set<String> now = allocation(c);
        if (!now.equals(last)) {
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("atMs", System.currentTimeMillis());
          e.put("queues", new ArrayList<>(now));
          timeline.add(e);
          last = now;
        }
        if (System.currentTimeMillis() >= deadline) break;
        Thread.sleep(100);
      }
    } finally {
      c.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("clientId", c.buildMQClientId());
    out.put("total", total.get());
    out.put("startedAtMs", t0);
    out.put("endedAtMs", System.currentTimeMillis());
    out.put("allocation", last == null ? new ArrayList<>() : new ArrayList<>(last));
    out.put("timeline", timeline);
    out.put("messages", new ArrayList<>(consumed));
    return out;
  }

  /** The queues this member holds now (its rebalance's process-queue table), as "topic@broker@queueId". */
  static Set<String> allocation(DefaultMQPushConsumer c) {
    Set<String> out = new TreeSet<>();
    for (MessageQueue mq : c.getDefaultMQPushConsumerImpl().getRebalanceImpl().getProcessQueueTable().keySet()) {
      if (mq.getTopic().startsWith("%RETRY%")) continue;
      out.add(mq.getTopic() + "@" + mq.getBrokerName() + "@" + mq.getQueueId());
    }
    return out;
  }
}
