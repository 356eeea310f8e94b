package org.rocketmqts.interop;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;
import org.apache.rocketmq.client.consumer.DefaultMQPushConsumer;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.listener.ConsumeConcurrentlyStatus;
import org.apache.rocketmq.client.consumer.listener.MessageListenerConcurrently;
import org.apache.rocketmq.common.consumer.ConsumeFromWhere;
import org.apache.rocketmq.common.message.MessageConst;
import org.apache.rocketmq.common.message.MessageExt;

/**
 * Push consumer from the first offset that checks every field of every message against the
 * deterministic scheme and reports what is missing, corrupt or duplicated.
 */
final class Consume {
  private Consume() {}

  private static final int COMPRESS_THRESHOLD = 4096;

  static final class Seen {
    final long seq;
    final String msgId;
    final Map<String, Object> summary;

    Seen(long seq, String msgId, Map<String, Object> summary) {
      this.seq = seq;
      this.msgId = msgId;
      this.summary = summary;
    }
  }

  /** A push consumer on loopback from the first offset, short intervals, subscribed to all of `topic`. */
  static DefaultMQPushConsumer consumer(String namesrv, String group, String topic, String role) throws Exception {
    // Signed when -Dinterop.accessKey is set (Acl.hook); the default allocation otherwise.
    DefaultMQPushConsumer c = new DefaultMQPushConsumer(group, Acl.hook(), new AllocateMessageQueueAveragely());
    c.setNamesrvAddr(namesrv);
    c.setVipChannelEnabled(false);
    c.setInstanceName(Driver.instanceName(role));
    c.setConsumeFromWhere(ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET);
    c.setPollNameServerInterval(1000);
    c.setHeartbeatBrokerInterval(2000);
    c.setPersistConsumerOffsetInterval(1000);
    c.setConsumeThreadMin(2);
    c.setConsumeThreadMax(4);
    c.subscribe(topic, "*");
    return c;
  }

  static Map<String, Object> run(Driver.Args a) throws Exception {
    String namesrv = a.str("namesrv");
    String topic = a.str("topic");
    String group = a.str("group");
    long expect = a.num("expect", null);
    long start = a.num("start", 0L);
    long timeoutMs = a.num("timeout-ms", 60000L);
    long settleMs = a.num("settle-ms", 500L);
    int size = (int) a.num("size", 0L);
    int report = (int) a.num("report", 20L);
    boolean verify = !"none".equals(a.str("verify", "deterministic"));

    Map<Long, Seen> first = new ConcurrentHashMap<>();
    List<Long> duplicates = new CopyOnWriteArrayList<>();
    List<String> duplicateMsgIds = new CopyOnWriteArrayList<>();
    List<Map<String, Object>> corrupt = new CopyOnWriteArrayList<>();
    List<Map<String, Object>> unexpected = new CopyOnWriteArrayList<>();
    List<Map<String, Object>> noSeq = new CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();

    DefaultMQPushConsumer c = consumer(namesrv, group, topic, "consumer");
    c.registerMessageListener(
        (MessageListenerConcurrently)
            (msgs, ctx) -> {
              for (MessageExt m : msgs) {
                total.incrementAndGet();
                Map<String, Object> summary = summarize(m);
                String seqText = m.getUserProperty(Deterministic.SEQ);
                long seq;
                try {
                  seq = Long.parseLong(seqText);
                } catch (Exception e) {
                  if (noSeq.size() < 20) noSeq.add(summary);
                  continue;
                }
                if (verify) {
                  if (seq < start || seq >= start + expect) {
                    if (unexpected.size() < 20) unexpected.add(summary);
                    continue;
                  }
                  List<String> problems = check(m, topic, seq, size);
                  if (!problems.isEmpty() && corrupt.size() < 50) {
                    Map<String, Object> bad = new LinkedHashMap<>(summary);
                    bad.put("problems", problems);
                    corrupt.add(bad);
                  }
                }
                Seen prev = first.putIfAbsent(seq, new Seen(seq, m.getMsgId(), summary));
                if (prev != null) {
                  duplicates.add(seq);
                  if (prev.msgId != null && prev.msgId.equals(m.getMsgId())) duplicateMsgIds.add(m.getMsgId());
                }
              }
              return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            });
    long t0 = System.currentTimeMillis();
    c.start();
    try {
      long deadline = t0 + timeoutMs;
      while (System.currentTimeMillis() < deadline && first.size() < expect) Thread.sleep(50);
      if (first.size() >= expect) Thread.sleep(settleMs);
    } finally {
      c.shutdown();
    }

    List<Long> missing = new ArrayList<>();
    if (verify) {
      for (long s = start; s < start + expect; s++) {
        if (!first.containsKey(s)) missing.add(s);
      }
    }
    TreeMap<Long, Seen> sorted = new TreeMap<>(first);
    List<Object> messages = new ArrayList<>();
    Map<String, String> ids = new LinkedHashMap<>();
    for (Seen s : sorted.values()) {
      if (messages.size() < report) messages.add(s.summary);
      if (ids.size() < 5000) ids.put(Long.toString(s.seq), s.msgId);
    }
    List<Long> dups = new ArrayList<>(duplicates);
    Collections.sort(dups);

    Map<String, Object> out = new LinkedHashMap<>();
    out.put("received", first.size());
    out.put("total", total.get());
    out.put("elapsedMs", System.currentTimeMillis() - t0);
    out.put("missingCount", missing.size());
    out.put("missing", Driver.limited(missing, 200));
    out.put("corruptCount", corrupt.size());
    out.put("corrupt", corrupt);
    out.put("duplicates", Driver.limited(dups, 200));
    out.put("duplicateCount", dups.size());
    out.put("duplicateSameMsgId", duplicateMsgIds.size());
    out.put("unexpected", unexpected);
    out.put("noSeq", noSeq);
    out.put("ids", ids);
    out.put("messages", messages);
    return out;
  }

  /** Every field the deterministic scheme fixes; each mismatch becomes one problem string. */
  static List<String> check(MessageExt m, String topic, long seq, int size) {
    List<String> p = new ArrayList<>();
    if (!topic.equals(m.getTopic())) p.add("topic " + m.getTopic());
    String lenText = m.getUserProperty(Deterministic.LEN);
    int len = -1;
    try {
      len = Integer.parseInt(lenText);
    } catch (Exception e) {
      p.add("p.len missing or bad: " + lenText);
    }
    int expectedLen = Deterministic.bodyLength(seq, size);
    if (len != expectedLen) p.add("p.len " + len + " != " + expectedLen);
    byte[] body = m.getBody();
    byte[] want = Deterministic.body(seq, expectedLen);
    if (body == null) p.add("body null");
    else if (!Arrays.equals(body, want)) {
      p.add("body differs: length " + body.length + " (want " + want.length + "), head " + Deterministic.hex(body, 16));
    }
    if (!Deterministic.tags(seq).equals(m.getTags())) p.add("tags " + m.getTags());
    if (!Deterministic.keys(seq).equals(m.getKeys())) p.add("keys " + m.getKeys());
    for (Map.Entry<String, String> e : Deterministic.userProperties(seq, expectedLen).entrySet()) {
      String got = m.getUserProperty(e.getKey());
      if (!e.getValue().equals(got)) p.add("property " + e.getKey() + " = " + got);
    }
    String uniq = m.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
    if (uniq == null || uniq.isEmpty()) p.add("UNIQ_KEY missing");
    else if (!uniq.matches("[0-9A-F]{32}|[0-9A-F]{56}")) p.add("UNIQ_KEY malformed " + uniq);
    else if (!uniq.equals(m.getMsgId())) p.add("msgId " + m.getMsgId() + " != UNIQ_KEY " + uniq);
    if (!loopback(m.getBornHost())) p.add("bornHost " + m.getBornHost());
    if (!loopback(m.getStoreHost())) p.add("storeHost " + m.getStoreHost());
    if (m.getQueueOffset() < 0) p.add("queueOffset " + m.getQueueOffset());
    if (m.getBornTimestamp() <= 0 || m.getStoreTimestamp() < m.getBornTimestamp() - 60000) {
      p.add("timestamps born " + m.getBornTimestamp() + " store " + m.getStoreTimestamp());
    }
    // The stored CRC covers the stored (possibly compressed) bytes; check it where the body was
    // certainly stored as is.
    if (body != null && body.length < COMPRESS_THRESHOLD && (m.getSysFlag() & 0x1) == 0) {
      CRC32 crc = new CRC32();
      crc.update(body);
      int want32 = (int) (crc.getValue() & 0x7fffffff);
      if (m.getBodyCRC() != want32) p.add("bodyCRC " + m.getBodyCRC() + " != " + want32);
    }
    return p;
  }

  static boolean loopback(SocketAddress a) {
    return a instanceof InetSocketAddress && ((InetSocketAddress) a).getAddress() != null
        && ((InetSocketAddress) a).getAddress().isLoopbackAddress();
  }

  static Map<String, Object> summarize(MessageExt m) {
    Map<String, Object> s = new LinkedHashMap<>();
    String seq = m.getUserProperty(Deterministic.SEQ);
    if (seq != null) s.put("seq", seq);
    s.put("msgId", m.getMsgId());
    s.put("tags", m.getTags());
    s.put("keys", m.getKeys());
    s.put("props", new TreeMap<>(m.getProperties()));
    byte[] body = m.getBody() == null ? new byte[0] : m.getBody();
    s.put("bodyLen", body.length);
    s.put("bodyHex", Deterministic.hex(body, 64));
    s.put("bodySha256", sha256(body));
    s.put("queueId", m.getQueueId());
    s.put("queueOffset", m.getQueueOffset());
    s.put("brokerName", m.getBrokerName());
    s.put("storeHost", String.valueOf(m.getStoreHost()));
    s.put("bornHost", String.valueOf(m.getBornHost()));
    s.put("sysFlag", m.getSysFlag());
    s.put("reconsumeTimes", m.getReconsumeTimes());
    return s;
  }

  static String sha256(byte[] b) {
    try {
      return Deterministic.hex(MessageDigest.getInstance("SHA-256").digest(b), 32);
    } catch (Exception e) {
      return "?";
    }
  }
}
