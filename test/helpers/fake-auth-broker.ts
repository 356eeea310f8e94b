/**
 * A stand-in for a RocketMQ 5.3+ broker's ACL 2.0 admin (codes 3001–3010): users and ACL entries
 * kept in memory and answered as Java's AdminBrokerProcessor answers (an empty body for "none",
 * NO_PERMISSION "The user is not exist" for an update of an unknown user), on 127.0.0.1 port 0.
 * `registerFakeBroker` puts its address at an embedded NameServer as a broker of a cluster.
 */
import {
  encodeAclInfo,
  encodeAclInfoList,
  encodeUserInfo,
  encodeUserInfoList,
  parseAclInfo,
  parseUserInfo,
  type AclInfo,
  type UserInfo,
} from '../../src/protocol/body/auth.js';
import { RequestCode, ResponseCode } from '../../src/protocol/codes.js';
import { createResponse, type RemotingCommand } from '../../src/protocol/command.js';
import { RemotingServer } from '../../src/remoting/server.js';
import type { EmbeddedCluster } from '../../src/server/cluster.js';

/** Registers `address` at the cluster's NameServer as `brokerName`/`brokerId` of `clusterName`. */
export function registerFakeBroker(
  cluster: EmbeddedCluster,
  clusterName: string,
  brokerName: string,
  brokerId: number,
  address: string,
): void {
  cluster.namesrv.routes.registerBroker({
    clusterName,
    brokerAddr: address,
    brokerName,
    brokerId,
    haServerAddr: '',
    topicConfigWrapper: { dataVersion: { counter: 1, timestamp: 1 }, topicConfigTable: {} },
  });
}

/** A broker's ACL 2.0 metadata in memory, answering as AdminBrokerProcessor does. */
export class FakeAuthBroker {
  readonly server = new RemotingServer({ host: '127.0.0.1', port: 0 });
  readonly users = new Map<string, UserInfo>();
  readonly acls = new Map<string, AclInfo>();
  readonly codes: number[] = [];
  address = '';

  async start(): Promise<string> {
    const reply = (
      r: RemotingCommand,
      body?: Buffer,
      code: number = ResponseCode.SUCCESS,
      remark?: string,
    ) => {
      const res = createResponse(r, code, remark);
      if (body) res.body = body;
      return res;
    };
    const ext = (r: RemotingCommand, k: string) => r.extFields?.[k];
    const on = (code: number, handle: (r: RemotingCommand) => RemotingCommand) =>
      this.server.registerProcessor(code, (r) => {
        this.codes.push(code);
        return handle(r);
      });
    on(RequestCode.AUTH_CREATE_USER, (r) => {
      const u = parseUserInfo(r.body)!;
      this.users.set(ext(r, 'username')!, { userType: 'Normal', userStatus: 'enable', ...u });
      return reply(r);
    });
    on(RequestCode.AUTH_UPDATE_USER, (r) => {
      const old = this.users.get(ext(r, 'username')!);
      if (!old) return reply(r, undefined, ResponseCode.NO_PERMISSION, 'The user is not exist');
      this.users.set(old.username, { ...old, ...parseUserInfo(r.body) });
      return reply(r);
    });
    on(RequestCode.AUTH_DELETE_USER, (r) => (this.users.delete(ext(r, 'username')!), reply(r)));
    on(RequestCode.AUTH_GET_USER, (r) => {
      const u = this.users.get(ext(r, 'username')!);
      return reply(r, u && encodeUserInfo(u));
    });
    on(RequestCode.AUTH_LIST_USER, (r) => {
      const f = ext(r, 'filter') ?? '';
      const list = [...this.users.values()].filter((u) => u.username.includes(f));
      return reply(r, list.length > 0 ? encodeUserInfoList(list) : undefined);
    });
    const putAcl = (r: RemotingCommand) => {
      const acl = parseAclInfo(r.body)!;
      this.acls.set(ext(r, 'subject')!, acl);
      return reply(r);
    };
    on(RequestCode.AUTH_CREATE_ACL, putAcl);
    on(RequestCode.AUTH_UPDATE_ACL, putAcl);
    on(RequestCode.AUTH_DELETE_ACL, (r) => {
      const subject = ext(r, 'subject')!;
      const resource = ext(r, 'resource');
      const acl = this.acls.get(subject);
      if (acl && resource !== undefined)
        for (const p of acl.policies) p.entries = p.entries.filter((e) => e.resource !== resource);
      else this.acls.delete(subject);
      return reply(r);
    });
    on(RequestCode.AUTH_GET_ACL, (r) => {
      const a = this.acls.get(ext(r, 'subject')!);
      return reply(r, a && encodeAclInfo(a));
    });
    on(RequestCode.AUTH_LIST_ACL, (r) => {
      const s = ext(r, 'subjectFilter') ?? '';
      const list = [...this.acls.values()].filter((a) => a.subject.includes(s));
      return reply(r, list.length > 0 ? encodeAclInfoList(list) : undefined);
    });
    const { port } = await this.server.listen();
    this.address = `127.0.0.1:${port}`;
    return this.address;
  }
}
