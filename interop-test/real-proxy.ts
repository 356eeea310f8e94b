/**
 * The 5.x Proxy (`org.apache.rocketmq:rocketmq-proxy`, ProxyStartup) as RealCluster runs it: cluster
 * mode in front of the cluster's NameServers, remoting and gRPC ports from the suite.
 *
 * Loopback: by default the Proxy advertises the machine's interface address in the routes it
 * serves (`localServeAddr`, `remotingAccessAddr`), so both are set to 127.0.0.1 and clients never
 * see another address. (Its servers listen on the wildcard address: the released Proxy has no
 * bind-address setting; nothing here connects anywhere but 127.0.0.1.)
 */
import { RequestCode } from '../src/protocol/codes.js';
import { canConnect, rawRequest } from './raw-remoting.js';

export const PROXY_MAIN_CLASS = 'org.apache.rocketmq.proxy.ProxyStartup';

export interface ProxyOptions {
  /**
   * Refuse a message whose type does not match its topic's `message.type` (the Proxy's default).
   * @default true
   */
  enableTopicMessageTypeCheck?: boolean;
  /** Heap of the Proxy JVM (MiB). @default min(512, the brokers' heap) */
  heapMb?: number;
  /** Further `rmq-proxy.json` keys (ProxyConfig field names). */
  config?: Record<string, string | number | boolean>;
}

/** The `rmq-proxy.json` of one Proxy. */
export function proxyConfigJson(input: {
  remoting: number;
  grpc: number;
  namesrvAddr: string;
  options: ProxyOptions;
}): string {
  const { remoting, grpc, namesrvAddr, options } = input;
  return JSON.stringify(
    {
      rocketMQClusterName: 'DefaultCluster',
      proxyClusterName: 'DefaultCluster',
      proxyMode: 'cluster',
      namesrvAddr,
      remotingListenPort: remoting,
      grpcServerPort: grpc,
      localServeAddr: '127.0.0.1',
      remotingAccessAddr: '127.0.0.1',
      enableTopicMessageTypeCheck: options.enableTopicMessageTypeCheck ?? true,
      ...options.config,
    },
    null,
    2,
  );
}

/** True once the Proxy accepts connections and answers a route lookup (it needs the NameServer). */
export async function proxyReady(addr: string): Promise<boolean> {
  if (!(await canConnect(addr))) return false;
  try {
    const res = await rawRequest(addr, RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 'TBW102' });
    return res.code === 0;
  } catch {
    return false;
  }
}
