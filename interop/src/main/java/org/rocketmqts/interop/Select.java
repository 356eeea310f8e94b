package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.client.producer.selector.SelectMessageQueueByHash;
import org.apache.rocketmq.common.message.Message;

/** select --namesrv A --topic T --keys k1,k2,...: where SelectMessageQueueByHash puts each key. */
final class Select {
  private Select() {}

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    String[] keys = a.str("keys").split(",");
    DefaultMQProducer p = Produce.producer(namesrv, a.str("group", "interop_sel_" + ProcessHandle.current().pid()));
    Map<String, Object> queues = new LinkedHashMap<>();
    try {
      for (String key : keys) {
        Message m = new Message(topic, ("java:" + key).getBytes(StandardCharsets.UTF_8));
        SendResult r = p.send(m, new SelectMessageQueueByHash(), key);
        queues.put(key, r.getMessageQueue().getBrokerName() + "/" + r.getMessageQueue().getQueueId());
      }
    } finally {
      p.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("queues", queues);
    return out;
  }
}
