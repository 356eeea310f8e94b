package org.rocketmqts.interop;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.rocketmq.tools.admin.DefaultMQAdminExt;

/**
 * clusterList and topicRoute through rocketmq-tools' DefaultMQAdminExt. The route and cluster
 * classes moved package between 4.9 and 5.x, so their getters are called reflectively.
 */
final class Admin {
  private Admin() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> run(String what, Driver.Args a) throws Exception {
    DefaultMQAdminExt admin = new DefaultMQAdminExt(5000);
    admin.setNamesrvAddr(a.str("namesrv"));
    admin.setVipChannelEnabled(false);
    admin.setInstanceName(Driver.instanceName("admin"));
    admin.setAdminExtGroup("interop_admin_" + ProcessHandle.current().pid());
    admin.start();
    try {
      Map<String, Object> out = new LinkedHashMap<>();
      if ("clusterList".equals(what)) {
        Object info = admin.examineBrokerClusterInfo();
        Map<String, Object> clusters = new TreeMap<>();
        for (Map.Entry<String, Set<String>> e : ((Map<String, Set<String>>) get(info, "getClusterAddrTable")).entrySet()) {
          clusters.put(e.getKey(), new ArrayList<>(new java.util.TreeSet<>(e.getValue())));
        }
        Map<String, Object> brokers = new TreeMap<>();
        for (Map.Entry<String, Object> e : ((Map<String, Object>) get(info, "getBrokerAddrTable")).entrySet()) {
          brokers.put(e.getKey(), brokerData(e.getValue()));
        }
        out.put("clusters", clusters);
        out.put("brokers", brokers);
      } else if ("topicRoute".equals(what)) {
        Object route = admin.examineTopicRouteInfo(a.str("topic"));
        ArrayList<Object> bds = new ArrayList<>();
        for (Object bd : (List<Object>) get(route, "getBrokerDatas")) bds.add(brokerData(bd));
        ArrayList<Object> qds = new ArrayList<>();
        for (Object qd : (List<Object>) get(route, "getQueueDatas")) {
          Map<String, Object> q = new LinkedHashMap<>();
          q.put("brokerName", get(qd, "getBrokerName"));
          q.put("readQueueNums", get(qd, "getReadQueueNums"));
          q.put("writeQueueNums", get(qd, "getWriteQueueNums"));
          q.put("perm", get(qd, "getPerm"));
          q.put("topicSysFlag", get(qd, "getTopicSysFlag"));
          qds.add(q);
        }
        out.put("brokerDatas", bds);
        out.put("queueDatas", qds);
      } else {
        throw new IllegalArgumentException("unknown admin command " + what);
      }
      return out;
    } finally {
      admin.shutdown();
    }
  }

  static Object get(Object target, String getter) throws Exception {
    return target.getClass().getMethod(getter).invoke(target);
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> brokerData(Object bd) throws Exception {
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("cluster", get(bd, "getCluster"));
    b.put("brokerName", get(bd, "getBrokerName"));
    Map<String, Object> addrs = new TreeMap<>();
    for (Map.Entry<Long, String> e : ((Map<Long, String>) get(bd, "getBrokerAddrs")).entrySet()) {
      addrs.put(e.getKey().toString(), e.getValue());
    }
    b.put("brokerAddrs", addrs);
    return b;
  }
}
