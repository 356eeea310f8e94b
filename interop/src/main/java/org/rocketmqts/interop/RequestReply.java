package org.rocketmqts.interop;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.utils.MessageUtil;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Request-reply (RIP-16) with the Java client: {@code request} is a requester
 * ({@code DefaultMQProducer.request}), {@code respond} a push consumer answering each request with
 * {@code MessageUtil.createReplyMessage} and an ordinary send.
 */
final class RequestReply {
  private RequestReply() {}

  /** request --namesrv A --topic T --count N [--timeout-ms M] [--group G]: {replies, properties, errors}. */
  static Map<String, Object> request(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    long count = a.num("count", null);
    long timeout = a.num("timeout-ms", 20000L);
    DefaultMQProducer p = Produce.producer(namesrv, a.str("group", "interop_req_" + ProcessHandle.current().pid()));
    List<String> replies = new ArrayList<>();
    List<Map<String, String>> properties = new ArrayList<>();
    List<String> errors = new ArrayList<>();
    try {
      for (long i = 0; i < count; i++) {
        Message m = new Message(topic, ("java-req-" + i).getBytes(StandardCharsets.UTF_8));
        try {
          Message reply = p.request(m, timeout);
          replies.add(new String(reply.getBody(), StandardCharsets.UTF_8));
          properties.add(reply.getProperties());
        } catch (Exception e) {
          errors.add("request " + i + ": " + e);
        }
      }
    } finally {
      p.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("replies", replies);
    out.put("properties", properties);
    out.put("errors", errors);
    return out;
  }

  /** respond --namesrv A --topic T --group G --count N [--timeout-ms M]: {replied, requests, errors}. */
  static Map<String, Object> respond(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    String group = a.str("group");
    long count = a.num("count", null);
    long timeout = a.num("timeout-ms", 60000L);
    DefaultMQProducer p = Produce.producer(namesrv, group + "_reply");
    List<String> requests = Collections.synchronizedList(new ArrayList<>());
    List<String> errors = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch done = new CountDownLatch((int) count);
    DefaultMQPushConsumer c = Consume.consumer(namesrv, group, topic, "responder");
    c.registerMessageListener(
        (MessageListenerConcurrently)
            (msgs, ctx) -> {
              for (MessageExt m : msgs) {
                // Only requests: other messages on the topic (the one that created it) are skipped.
                if (m.getProperty(MessageConst.PROPERTY_CORRELATION_ID) == null) continue;
                String body = new String(m.getBody(), StandardCharsets.UTF_8);
                try {
                  Message reply = MessageUtil.createReplyMessage(m, ("java:" + body).getBytes(StandardCharsets.UTF_8));
                  p.send(reply, 5000);
                  requests.add(body);
                  done.countDown();
                } catch (Exception e) {
                  errors.add(body + ": " + e);
                }
              }
              return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
    c.start();
    try {
      done.await(timeout, TimeUnit.MILLISECONDS);
    } finally {
      c.shutdown();
      p.shutdown();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("replied", requests.size());
    out.put("requests", new ArrayList<>(requests));
    out.put("errors", new ArrayList<>(errors));
    return out;
  }
}
