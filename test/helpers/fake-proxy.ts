/**
 * TEST ONLY: a stand-in for the 5.x Proxy's remoting endpoint (docs/protocol.md §13.5) in front
 * of an EmbeddedCluster, so the client's behaviour through a Proxy is tested without Java.
 *
 * What it reproduces of Apache's RemotingProtocolServer (5.5.0):
 * - only the request codes the Proxy registers are served; every other code (NOTIFICATION,
 *   BATCH_ACK, SEND_REPLY_MESSAGE, every admin code) is answered REQUEST_CODE_NOT_SUPPORTED with
 *   Netty's remark, as a server with no processor for the code answers;
 * - GET_ROUTEINFO_BY_TOPIC answers the NameServer's route with this endpoint as every broker's
 *   only address (brokerId 0);
 * - requests the Proxy forwards are routed by the `bname` field (`n` for SEND_MESSAGE_V2 and
 *   SEND_BATCH_MESSAGE) and refused with VERSION_NOT_SUPPORTED without it;
 * - LOCK/UNLOCK_BATCH_MQ go to the broker of the body's first queue; HEART_BEAT and
 *   UNREGISTER_CLIENT reach every broker; CHECK_CLIENT_CONFIG is answered here;
 * - END_TRANSACTION goes to the broker the Proxy has transaction data for, not by `bname`; for a
 *   remoting client that data comes only from a check it relayed (SendMessageActivity forwards
 *   the half message raw), so an END_TRANSACTION right after the send is answered and dropped
 *   (TRANSACTION_DATA_NOT_FOUND is answered SUCCESS), and the check-back settles the transaction;
 * - POP does not work: POP_MESSAGE is answered SYSTEM_ERROR and ACK_MESSAGE /
 *   CHANGE_MESSAGE_INVISIBLETIME never (5.5.0's activities, see handle());
 * - broker → client requests are relayed to the client they are for, a CHECK_TRANSACTION_STATE
 *   rebuilt without `bname` as the Proxy's RemotingChannel writes it.
 *
 * How: each client connection gets its own upstream connection per broker, so a broker's
 * requests to "its" client (registered by the heartbeat relayed on that upstream connection)
 * come back on the connection that maps to exactly one client connection. The real Proxy pools
 * upstream connections and keeps its own client registry instead; the client sees the same.
 */
import { Connection } from '../../src/remoting/connection.js';
import { RemotingServer } from '../../src/remoting/server.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, isOneway, type RemotingCommand } from '../../src/protocol/command.js';
import { encodeTopicRouteData, parseTopicRouteData } from '../../src/protocol/headers/route.js';
import { parseFastjsonBytes } from '../../src/protocol/fastjson.js';
import type { EmbeddedCluster } from '../../src/server/cluster.js';

/** Codes forwarded by the `bname` header field (`n` for the two compact send headers). */
const BY_BNAME: ReadonlySet<number> = new Set([
  RequestCode.SEND_MESSAGE,
  RequestCode.SEND_MESSAGE_V2,
  RequestCode.SEND_BATCH_MESSAGE,
  RequestCode.CONSUMER_SEND_MSG_BACK,
  RequestCode.RECALL_MESSAGE,
  RequestCode.PULL_MESSAGE,
  RequestCode.LITE_PULL_MESSAGE,
  RequestCode.UPDATE_CONSUMER_OFFSET,
  RequestCode.GET_MAX_OFFSET,
  RequestCode.GET_MIN_OFFSET,
  RequestCode.QUERY_CONSUMER_OFFSET,
  RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
]);

const SHORT_BNAME: ReadonlySet<number> = new Set([
  RequestCode.SEND_MESSAGE_V2,
  RequestCode.SEND_BATCH_MESSAGE,
]);

const TIMEOUT_MS = 30_000;

/** MQVersion.V5_5_0's ordinal: what the Proxy's own answers carry (a client may read it). */
const PROXY_VERSION = 530;

/** An answer the Proxy makes itself (not a broker's, forwarded). */
function own(request: RemotingCommand, code: number, remark?: string, body?: Uint8Array): RemotingCommand {
  return createResponse(request, code, remark, undefined, body, PROXY_VERSION);
}

export class FakeProxy {
  /** Request codes answered REQUEST_CODE_NOT_SUPPORTED, in arrival order. */
  readonly refused: number[] = [];
  /** Requests taken and never answered (as 5.5.0 does with ACK_MESSAGE), in arrival order. */
  readonly unanswered: number[] = [];
  /** Requests forwarded per broker name. */
  readonly forwarded = new Map<string, number>();
  private readonly upstream = new Map<Connection, Map<string, Promise<Connection>>>();
  /** transactionId → broker name of the checks relayed (the Proxy's TransactionDataManager, reduced). */
  private readonly transactions = new Map<string, string>();
  private namesrv: Promise<Connection> | undefined;

  private constructor(
    private readonly cluster: EmbeddedCluster,
    private readonly server: RemotingServer,
  ) {}

  /** Starts on 127.0.0.1, port 0, in front of `cluster`. */
  static async start(cluster: EmbeddedCluster): Promise<FakeProxy> {
    const server = new RemotingServer({ host: '127.0.0.1', port: 0 });
    const proxy = new FakeProxy(cluster, server);
    server.setDefaultProcessor((request, conn) => proxy.handle(request, conn));
    server.on('disconnect', (conn: Connection) => proxy.dropClient(conn));
    await server.listen();
    return proxy;
  }

  /** `host:port` to use as `namesrvAddr`. */
  get address(): string {
    return this.server.address;
  }

  async close(): Promise<void> {
    await this.server.close();
    for (const conn of [...this.upstream.keys()]) this.dropClient(conn);
    const ns = this.namesrv;
    this.namesrv = undefined;
    if (ns !== undefined) (await ns.catch(() => undefined))?.close();
  }

  private handle(
    request: RemotingCommand,
    client: Connection,
  ): Promise<RemotingCommand | undefined> | RemotingCommand | undefined {
    const code = request.code;
    const fields = request.extFields ?? {};
    if (code === RequestCode.GET_ROUTEINFO_BY_TOPIC) return this.route(request);
    if (code === RequestCode.CHECK_CLIENT_CONFIG) return own(request, ResponseCode.SUCCESS);
    if (code === RequestCode.HEART_BEAT || code === RequestCode.UNREGISTER_CLIENT)
      return this.everyBroker(request, client);
    if (
      code === RequestCode.GET_CONSUMER_LIST_BY_GROUP ||
      code === RequestCode.GET_CONSUMER_CONNECTION_LIST
    ) {
      // The Proxy answers from its own client registry: every broker has the same view here.
      return this.forward(this.cluster.brokers[0]!.name, request, client);
    }
    if (code === RequestCode.LOCK_BATCH_MQ || code === RequestCode.UNLOCK_BATCH_MQ) {
      const body = parseFastjsonBytes(request.body ?? new Uint8Array(0)) as {
        mqSet?: { brokerName?: string }[];
      };
      const brokerName = body.mqSet?.[0]?.brokerName;
      if (brokerName === undefined)
        return own(request, ResponseCode.SUCCESS, 'MessageQueue set is empty', request.body);
      return this.forward(brokerName, request, client);
    }
    if (code === RequestCode.END_TRANSACTION) {
      const brokerName = this.transactions.get(fields.transactionId ?? '');
      // TRANSACTION_DATA_NOT_FOUND is answered SUCCESS by the Proxy (and END_TRANSACTION is oneway).
      if (brokerName === undefined) return isOneway(request) ? undefined : own(request, ResponseCode.SUCCESS);
      return this.forward(brokerName, request, client);
    }
    // 5.5.0 registers POP_MESSAGE to PullMessageActivity, which decodes it as a pull request and
    // fails on the pull header's absent sysFlag; ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME go to
    // ConsumerManagerActivity, which has no case for them and never answers.
    if (code === RequestCode.POP_MESSAGE)
      return own(request, ResponseCode.SYSTEM_ERROR, 'the custom field <sysFlag> is null');
    if (code === RequestCode.ACK_MESSAGE || code === RequestCode.CHANGE_MESSAGE_INVISIBLETIME) {
      this.unanswered.push(code);
      return undefined;
    }
    if (BY_BNAME.has(code)) {
      const brokerName = SHORT_BNAME.has(code) ? fields.n : fields.bname;
      if (brokerName === undefined)
        return own(request, ResponseCode.VERSION_NOT_SUPPORTED, "Request doesn't have field bname");
      return this.forward(brokerName, request, client);
    }
    this.refused.push(code);
    return own(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, ` request type ${code} not supported`);
  }

  private async route(request: RemotingCommand): Promise<RemotingCommand> {
    this.namesrv ??= Connection.connect(this.cluster.namesrvAddr);
    const response = await (await this.namesrv).request({ ...request }, TIMEOUT_MS);
    if (response.code !== ResponseCode.SUCCESS || response.body === undefined) return { ...response };
    const route = parseTopicRouteData(response.body);
    for (const bd of route.brokerDatas) bd.brokerAddrs = { '0': this.address };
    return { ...response, body: encodeTopicRouteData(route) };
  }

  private async everyBroker(request: RemotingCommand, client: Connection): Promise<RemotingCommand> {
    for (const b of this.cluster.brokers) {
      if (!b.broker.running) continue;
      const r = await this.forward(b.name, { ...request }, client);
      if (r !== undefined && r.code !== ResponseCode.SUCCESS) return r;
    }
    return own(request, ResponseCode.SUCCESS);
  }

  private async forward(
    brokerName: string,
    request: RemotingCommand,
    client: Connection,
  ): Promise<RemotingCommand | undefined> {
    const broker = this.cluster.brokers.find((b) => b.name === brokerName);
    if (broker === undefined)
      return own(request, ResponseCode.SYSTEM_ERROR, `no broker named ${brokerName} behind the proxy`);
    this.forwarded.set(brokerName, (this.forwarded.get(brokerName) ?? 0) + 1);
    const conn = await this.link(client, brokerName, broker.addr);
    const copy = { ...request };
    if (isOneway(request)) {
      await conn.oneway(copy);
      return undefined;
    }
    return { ...(await conn.request(copy, TIMEOUT_MS)) };
  }

  /** The upstream connection of `client` to `brokerName`, relaying the broker's requests back. */
  private link(client: Connection, brokerName: string, address: string): Promise<Connection> {
    let links = this.upstream.get(client);
    if (links === undefined) this.upstream.set(client, (links = new Map()));
    let link = links.get(brokerName);
    if (link === undefined) {
      link = Connection.connect(address, {
        requestHandler: (request) => this.relay(brokerName, request, client),
      });
      links.set(brokerName, link);
    }
    return link;
  }

  private async relay(
    brokerName: string,
    request: RemotingCommand,
    client: Connection,
  ): Promise<RemotingCommand | undefined> {
    const copy = { ...request };
    if (request.code === RequestCode.CHECK_TRANSACTION_STATE) {
      const { bname: _bname, ...rest } = request.extFields ?? {};
      copy.extFields = rest;
      if (rest.transactionId !== undefined) this.transactions.set(rest.transactionId, brokerName);
    }
    if (isOneway(request)) {
      await client.oneway(copy);
      return undefined;
    }
    return { ...(await client.request(copy, TIMEOUT_MS)) };
  }

  private dropClient(client: Connection): void {
    const links = this.upstream.get(client);
    this.upstream.delete(client);
    for (const link of links?.values() ?? [])
      void link.then(
        (c) => c.close(),
        () => undefined,
      );
  }
}
