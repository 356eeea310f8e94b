/**
 * What every request family of the Admin client shares: one private ClientInstance (connections
 * and the NameServer client; never started, so no heartbeats or route polling), the request
 * timeout, and the translation of transport failures and response codes into typed errors.
 */
import { errorFromResponse } from '../client/response-error.js';
import { ClientInstance } from '../client/client-instance.js';
import { clientIdOf, clientInstanceConfig } from '../client/client-options.js';
import { Deadline } from '../client/deadline.js';
import {
  BrokerNotFoundError,
  BrokerUnavailableError,
  ConnectError,
  ConnectionClosedError,
  IllegalStateError,
  NameServerUnreachableError,
  ProxyEndpointError,
  TimeoutError,
  TopicNotFoundError,
} from '../errors.js';
import { ResponseCode } from '../protocol/codes.js';
import { createRequest, type RemotingCommand } from '../protocol/command.js';
import type { HeaderOf, HeaderSpec, RequestDeclaration } from '../protocol/headers/fields.js';
import { masterAddress, type TopicRouteData } from '../protocol/headers/route.js';
import type { ClusterInfo } from '../protocol/headers/register.js';
import type { AdminTarget } from './types.js';
import type { ResolvedAdminOptions } from './options.js';

/** Java's admin tools run as this group (pulls, queries). */
export const TOOLS_CONSUMER_GROUP = 'TOOLS_CONSUMER';

export class AdminContext {
  readonly instance: ClientInstance;
  /** The signal of the Admin call this view serves (`withSignal`); undefined on the shared context. */
  readonly signal: AbortSignal | undefined = undefined;
  /** The NameServer addresses configured (`namesrvAddr`), to recognise a Proxy answering as a broker. */
  private readonly namesrvAddresses: ReadonlySet<string>;
  /** After Admin.shutdown(): every request rejects with IllegalStateError. */
  private closed = false;

  constructor(readonly options: ResolvedAdminOptions) {
    // Each Admin gets its own instance: the default instance name would share a producer's.
    const instanceName =
      options.instanceName === 'DEFAULT' ? `admin-${process.pid}-${Date.now()}` : options.instanceName;
    this.instance = new ClientInstance(
      clientInstanceConfig(options, clientIdOf({ ...options, instanceName })),
    );
    this.namesrvAddresses = new Set(this.instance.namesrv.addresses);
  }

  /**
   * This context for one Admin call with `signal`: every request the call's family module sends
   * through it (`send`, `namesrv`, `deadline`) is aborted by the signal. A view, not a copy: the
   * instance and its connections are the shared ones.
   */
  withSignal(signal: AbortSignal | undefined): AdminContext {
    if (signal === undefined) return this;
    return Object.create(this, { signal: { value: signal } }) as AdminContext;
  }

  deadline(): Deadline {
    return Deadline.after(this.options.mqClientApiTimeout, Date.now, this.signal);
  }

  /** Sends one request; transport failures become BrokerUnavailableError. */
  async send<S extends HeaderSpec>(
    address: string,
    decl: RequestDeclaration<S>,
    header: HeaderOf<S> | undefined,
    body?: Uint8Array,
    extra?: Record<string, string>,
  ): Promise<RemotingCommand> {
    this.checkOpen();
    const ext = header === undefined ? extra : { ...decl.encode(header), ...extra };
    const request = createRequest(decl.code, ext, body, this.instance.commandDefaults);
    try {
      return await this.instance.pool.request(address, request, this.options.mqClientApiTimeout, this.signal);
    } catch (err) {
      if (err instanceof ConnectError || err instanceof TimeoutError || err instanceof ConnectionClosedError)
        throw new BrokerUnavailableError(address, { cause: err });
      throw err;
    }
  }

  /**
   * `send`, then: SUCCESS → the response; a code `mapped` knows → its error; anything else → errorFromResponse
   * (REQUEST_CODE_NOT_SUPPORTED → RequestNotSupportedError, ACL → AccessDeniedError, …).
   */
  async call<S extends HeaderSpec>(
    address: string,
    decl: RequestDeclaration<S>,
    header: HeaderOf<S> | undefined,
    body?: Uint8Array,
    mapped?: (response: RemotingCommand) => Error | undefined,
    extra?: Record<string, string>,
  ): Promise<RemotingCommand> {
    const response = await this.send(address, decl, header, body, extra);
    if (response.code === ResponseCode.SUCCESS) return response;
    throw this.failure(address, decl.code, response, mapped);
  }

  failure(
    address: string,
    code: number,
    response: RemotingCommand,
    mapped?: (response: RemotingCommand) => Error | undefined,
  ): Error {
    if (response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED) {
      // A broker at a NameServer's address is a 5.x Proxy naming itself as every broker: it
      // serves no admin request, whichever is tried (NameServerClient tells it apart too).
      if (this.namesrvAddresses.has(address)) return new ProxyEndpointError(address, code);
      return errorFromResponse(response, { address, requestCode: code });
    }
    return mapped?.(response) ?? errorFromResponse(response, { address, requestCode: code });
  }

  /** NameServer request with failover; transport failures become NameServerUnreachableError. */
  async namesrv<T>(run: (deadline: Deadline) => Promise<T>): Promise<T> {
    this.checkOpen();
    try {
      return await run(this.deadline());
    } catch (err) {
      if (err instanceof ConnectError || err instanceof TimeoutError || err instanceof ConnectionClosedError)
        throw new NameServerUnreachableError(this.options.namesrvAddr, { cause: err });
      throw err;
    }
  }

  /** Sends to the current NameServer (with failover). */
  async namesrvCall<S extends HeaderSpec>(
    decl: RequestDeclaration<S>,
    header: HeaderOf<S> | undefined,
  ): Promise<RemotingCommand> {
    const ns = this.instance.namesrv;
    const response = await this.namesrv((d) =>
      ns.request(
        () =>
          createRequest(
            decl.code,
            header === undefined ? undefined : decl.encode(header),
            undefined,
            this.instance.commandDefaults,
          ),
        d,
      ),
    );
    if (response.code !== ResponseCode.SUCCESS) throw this.failure(ns.currentAddress, decl.code, response);
    return response;
  }

  clusterInfo(): Promise<ClusterInfo> {
    return this.namesrv((d) => this.instance.namesrv.getClusterInfo(d));
  }

  /** The topic's route; TopicNotFoundError when the NameServer has none. */
  async route(topic: string): Promise<TopicRouteData> {
    const route = await this.routeIfAny(topic);
    if (!route) throw new TopicNotFoundError(topic);
    return route;
  }

  /** The route, or undefined when the topic does not exist. */
  async routeIfAny(topic: string): Promise<TopicRouteData | undefined> {
    return this.namesrv((d) => this.instance.routes.latest(topic, d));
  }

  /** Master addresses of the brokers in a route, by broker name. */
  routeMasters(route: TopicRouteData): Map<string, string> {
    const out = new Map<string, string>();
    for (const bd of route.brokerDatas) {
      const addr = masterAddress(bd);
      if (addr !== undefined) out.set(bd.brokerName, addr);
    }
    return out;
  }

  /** Every master of the cluster (or of every cluster), by broker name. */
  async masters(cluster?: string): Promise<Map<string, string>> {
    const info = await this.clusterInfo();
    let names: string[];
    if (cluster === undefined) names = Object.keys(info.brokerAddrTable);
    else {
      const inCluster = info.clusterAddrTable[cluster];
      if (!inCluster) throw new BrokerNotFoundError(cluster);
      names = inCluster;
    }
    const out = new Map<string, string>();
    for (const name of names.sort()) {
      const bd = info.brokerAddrTable[name];
      const addr = bd && masterAddress(bd);
      if (addr !== undefined) out.set(name, addr);
    }
    return out;
  }

  /**
   * A broker named by `host:port` (used as is) or by broker name (its master, or any address
   * when it has no master). BrokerNotFoundError for an unknown name.
   */
  async brokerAddress(broker: string): Promise<{ brokerName: string; address: string }> {
    const info = await this.clusterInfo();
    if (broker.includes(':')) {
      for (const bd of Object.values(info.brokerAddrTable))
        if (Object.values(bd.brokerAddrs).includes(broker))
          return { brokerName: bd.brokerName, address: broker };
      return { brokerName: broker, address: broker };
    }
    const bd = info.brokerAddrTable[broker];
    const addr = bd && (masterAddress(bd) ?? Object.values(bd.brokerAddrs)[0]);
    if (!bd || addr === undefined) throw new BrokerNotFoundError(broker);
    return { brokerName: broker, address: addr };
  }

  /** The masters a change goes to: `target.brokers`, or every master of `target.cluster`. */
  async targets(target: AdminTarget): Promise<Map<string, string>> {
    if (target.brokers && target.brokers.length > 0) {
      const out = new Map<string, string>();
      for (const b of target.brokers) {
        const { brokerName, address } = await this.brokerAddress(b);
        out.set(brokerName, address);
      }
      return out;
    }
    return this.masters(target.cluster);
  }

  /** Addresses of every broker the NameServer knows (to match message store hosts against). */
  async knownAddresses(): Promise<Set<string>> {
    const info = await this.clusterInfo();
    return new Set(Object.values(info.brokerAddrTable).flatMap((bd) => Object.values(bd.brokerAddrs)));
  }

  private checkOpen(): void {
    if (this.closed) throw new IllegalStateError('admin client is shut down; create a new one');
  }

  /** From now on every request rejects with IllegalStateError. */
  refuseRequests(): void {
    this.closed = true;
  }

  close(): Promise<void> {
    this.closed = true;
    return this.instance.shutdown();
  }
}
