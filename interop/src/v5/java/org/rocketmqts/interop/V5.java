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
}
