/**
 * Requests to the NameServers with failover: the client sticks to one NameServer (chosen at
 * random, as Java does) and moves to the next when it fails to answer; the caller's timeout is
 * shared across the NameServers tried. A NameServer that failed to answer is skipped for a
 * while (1 s, doubling per failure up to 30 s) and tried again only after that, or as a last
 * resort when every other one failed too: a dead NameServer costs no time on every call.
 */
import { errorFromResponse } from './response-error.js';
import { ConnectError, ConnectionClosedError, TimeoutError } from '../errors.js';
import type { Logger } from '../observability/logger.js';
import { RequestCode, ResponseCode } from '../protocol/codes.js';
import { createRequest, type CommandDefaults, type RemotingCommand } from '../protocol/command.js';
import { GetBrokerClusterInfo, parseClusterInfo, type ClusterInfo } from '../protocol/headers/register.js';
import { GetRouteInfoByTopic, parseTopicRouteData, type TopicRouteData } from '../protocol/headers/route.js';
import type { ConnectionPool } from '../remoting/pool.js';
import type { Clock, Deadline } from './deadline.js';
import { NotANameServerError, ProxyEndpointError } from '../errors.js';

/** First backoff of a NameServer that failed to answer (ms); doubles per failure. */
export const NAMESRV_BACKOFF_MIN_MS = 1000;
/** Longest backoff of a NameServer that keeps failing (ms). */
export const NAMESRV_BACKOFF_MAX_MS = 30_000;

/**
 * Requests every NameServer version answers: REQUEST_CODE_NOT_SUPPORTED to one of them means the
 * address is not a NameServer (a broker, most likely), not an old NameServer.
 */
const EVERY_NAMESRV_SUPPORTS: ReadonlySet<number> = new Set([
  RequestCode.GET_ROUTEINFO_BY_TOPIC,
  RequestCode.GET_BROKER_CLUSTER_INFO,
  RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
]);

/** The topic whose route tells a Proxy from a broker (Java's auto-create template topic, on every cluster). */
const PROXY_PROBE_TOPIC = 'TBW102';

/** A timeout marks a NameServer down only if it had at least this long to answer (ms). */
const MIN_TIMEOUT_EVIDENCE_MS = 200;

function isNamesrvDown(err: unknown): boolean {
  return err instanceof ConnectError || err instanceof TimeoutError || err instanceof ConnectionClosedError;
}

export class NamesrvClient {
  private current: number;
  /** Per NameServer: consecutive failures and when it may be tried again (epoch ms). */
  private readonly failures: number[];
  private readonly retryAt: number[];

  constructor(
    readonly addresses: readonly string[],
    private readonly pool: ConnectionPool,
    private readonly defaults: Readonly<CommandDefaults>,
    private readonly logger: Logger,
    /** First NameServer to use; random (as Java) when absent. */
    startIndex?: number,
    private readonly clock: Clock = Date.now,
  ) {
    this.failures = addresses.map(() => 0);
    this.retryAt = addresses.map(() => 0);
    this.current =
      startIndex === undefined
        ? Math.floor(Math.random() * addresses.length)
        : ((startIndex % addresses.length) + addresses.length) % addresses.length;
  }

  /** The NameServer currently in use. */
  get currentAddress(): string {
    return this.addresses[this.current % this.addresses.length] as string;
  }

  /**
   * NameServers in the order to try: from the current one on, those not backing off first, then
   * those backing off (soonest retry first) as a last resort.
   */
  private order(): number[] {
    const n = this.addresses.length;
    const now = this.clock();
    const up: number[] = [];
    const down: number[] = [];
    for (let k = 0; k < n; k++) {
      const i = (this.current + k) % n;
      ((this.retryAt[i] as number) <= now ? up : down).push(i);
    }
    down.sort((a, b) => (this.retryAt[a] as number) - (this.retryAt[b] as number));
    return [...up, ...down];
  }

  /** Whether the NameServer at `address` is backing off after failures (for diagnostics and tests). */
  isBackingOff(address: string): boolean {
    const i = this.addresses.indexOf(address);
    return i >= 0 && (this.retryAt[i] as number) > this.clock();
  }

  private markDown(index: number): void {
    const f = ((this.failures[index] as number) + 1) | 0;
    this.failures[index] = f;
    const backoff = Math.min(NAMESRV_BACKOFF_MAX_MS, NAMESRV_BACKOFF_MIN_MS * 2 ** Math.min(f - 1, 16));
    this.retryAt[index] = this.clock() + backoff;
  }

  /**
   * Sends `build()` to the current NameServer, failing over to the others within `deadline`;
   * its signal aborts the request (AbortError, no failover).
   */
  async request(build: () => RemotingCommand, deadline: Deadline): Promise<RemotingCommand> {
    const order = this.order();
    const n = order.length;
    let lastError: unknown;
    for (let k = 0; k < n; k++) {
      const remaining = deadline.remaining();
      if (remaining <= 0) break;
      const index = order[k] as number;
      const address = this.addresses[index] as string;
      // Leave time for the NameServers not tried yet.
      const budget = k === n - 1 ? remaining : Math.max(1, Math.floor(remaining / (n - k)));
      try {
        const request = build();
        const response = await this.pool.request(address, request, budget, deadline.signal);
        if (
          response.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED &&
          EVERY_NAMESRV_SUPPORTS.has(request.code)
        )
          throw await this.notANameServer(address, request.code, budget);
        this.failures[index] = 0;
        this.retryAt[index] = 0;
        if (index !== this.current) {
          this.logger.info('switched NameServer', { from: this.currentAddress, to: address });
          this.current = index;
        }
        return response;
      } catch (err) {
        lastError = err;
        if (!isNamesrvDown(err)) throw err;
        // A timeout within a sliver of budget says little about the NameServer.
        if (!(err instanceof TimeoutError) || budget >= MIN_TIMEOUT_EVIDENCE_MS) this.markDown(index);
        this.logger.warn('NameServer request failed', {
          address,
          error: (err as Error).message,
          retryInMs: (this.retryAt[index] as number) - this.clock(),
        });
      }
    }
    throw lastError ?? new TimeoutError(this.currentAddress, RequestCode.GET_ROUTEINFO_BY_TOPIC, 0);
  }

  /**
   * The error for an address that refused NameServer request `code`. A 5.x Proxy serves routes
   * but no admin request, while a broker serves neither: a refused admin request is followed by
   * one route request to the same address, and an answer to it means a Proxy (ProxyEndpointError,
   * which says to use a NameServer). Only on this failure path: a NameServer costs nothing extra.
   */
  private async notANameServer(
    address: string,
    code: number,
    budgetMs: number,
  ): Promise<NotANameServerError> {
    if (code === RequestCode.GET_ROUTEINFO_BY_TOPIC) return new NotANameServerError(address, code);
    const probe = createRequest(
      GetRouteInfoByTopic.code,
      GetRouteInfoByTopic.encode({ topic: PROXY_PROBE_TOPIC }),
      undefined,
      this.defaults,
    );
    const answer = await this.pool.request(address, probe, budgetMs).catch(() => undefined);
    return answer !== undefined && answer.code !== ResponseCode.REQUEST_CODE_NOT_SUPPORTED
      ? new ProxyEndpointError(address, code)
      : new NotANameServerError(address, code);
  }

  /** GET_ROUTEINFO_BY_TOPIC; undefined when the NameServer answers TOPIC_NOT_EXIST. */
  async getRouteInfo(topic: string, deadline: Deadline): Promise<TopicRouteData | undefined> {
    const response = await this.request(
      () =>
        createRequest(
          GetRouteInfoByTopic.code,
          GetRouteInfoByTopic.encode({ topic }),
          undefined,
          this.defaults,
        ),
      deadline,
    );
    if (response.code === ResponseCode.TOPIC_NOT_EXIST) return undefined;
    return parseTopicRouteData(this.successBody(response));
  }

  /** GET_BROKER_CLUSTER_INFO: every cluster and broker the NameServer knows. */
  async getClusterInfo(deadline: Deadline): Promise<ClusterInfo> {
    const response = await this.request(
      () => createRequest(GetBrokerClusterInfo.code, undefined, undefined, this.defaults),
      deadline,
    );
    return parseClusterInfo(this.successBody(response));
  }

  private successBody(response: RemotingCommand): Uint8Array {
    if (response.code !== ResponseCode.SUCCESS || response.body === undefined) {
      throw errorFromResponse(response, { address: this.currentAddress });
    }
    return response.body;
  }
}
