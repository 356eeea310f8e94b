package org.rocketmqts.interop;

import org.apache.rocketmq.acl.common.AclClientRPCHook;
import org.apache.rocketmq.acl.common.SessionCredentials;
import org.apache.rocketmq.remoting.RPCHook;

/** -Dinterop.accessKey/-Dinterop.secretKey: sign every request as an ACL client does. */
final class Acl {
  private Acl() {}

  /** The signing hook, or null when no accessKey is given. */
  static RPCHook hook() {
    String accessKey = System.getProperty("interop.accessKey");
    if (accessKey == null) return null;
    return new AclClientRPCHook(new SessionCredentials(accessKey, System.getProperty("interop.secretKey")));
  }
}
