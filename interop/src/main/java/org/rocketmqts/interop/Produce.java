package org.rocketmqts.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.message.Message;

/** Sends deterministic messages synchronously, one by one or in batches. */
final class Produce {
  private Produce() {}

  static DefaultMQProducer producer(String namesrv, String group) throws Exception {
    // -Dinterop.accessKey/-Dinterop.secretKey: sign every request as an ACL client does.
    DefaultMQProducer p = new DefaultMQProducer(group, Acl.hook());
    p.setNamesrvAddr(namesrv);
    p.setVipChannelEnabled(false);
    p.setInstanceName(Driver.instanceName("producer"));
    p.setSendMsgTimeout(5000);
    p.setRetryTimesWhenSendFailed(2);
    p.setPollNameServerInterval(1000);
    p.setHeartbeatBrokerInterval(5000);
    p.start();
    return p;
  }

  static Message message(String topic, long seq, int size) {
    int len = Deterministic.bodyLength(seq, size);
    Message m = new Message(topic, Deterministic.tags(seq), Deterministic.keys(seq), Deterministic.body(seq, len));
    for (Map.Entry<String, String> e : Deterministic.userProperties(seq, len).entrySet()) {
      m.putUserProperty(e.getKey(), e.getValue());
    }
    return m;
  }

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    long count = a.num("count", null);
    long start = a.num("start", 0L);
    int batch = (int) a.num("batch", 1L);
    int size = (int) a.num("size", 0L);
    String group = a.str("group", "interop_pg_" + ProcessHandle.current().pid());

    DefaultMQProducer p = producer(namesrv, group);
    List<String> msgIds = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    List<String> statuses = new ArrayList<>();
    long sent = 0;
    long failed = 0;
    long t0 = System.nanoTime();
    try {
      for (long seq = start; seq < start + count; seq += batch) {
        List<Message> msgs = new ArrayList<>();
        for (long s = seq; s < Math.min(seq + batch, start + count); s++) msgs.add(message(topic, s, size));
        try {
          SendResult r = batch > 1 ? p.send(msgs) : p.send(msgs.get(0));
          if (r.getSendStatus() != SendStatus.SEND_OK) statuses.add(r.getSendStatus().name());
          for (String id : r.getMsgId().split(",")) msgIds.add(id);
          sent += msgs.size();
        } catch (Exception e) {
          failed += msgs.size();
          if (errors.size() < 10) errors.add("seq " + seq + ": " + e);
        }
      }
    } finally {
      p.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("sent", sent);
    out.put("failed", failed);
    out.put("elapsedMs", (System.nanoTime() - t0) / 1_000_000);
    out.put("msgIds", msgIds);
    out.put("notOkStatuses", statuses);
    out.put("errors", errors);
    return out;
  }
}
