/**
 * Signed-request hardening (docs/security.md §2.8). Java's AclClientRPCHook signs the values of
 * the extFields sorted by key, and the body, but neither the keys nor the request code, and
 * that format cannot change without breaking every Java client. So, once a request's signature
 * checks out, the broker also refuses one whose fields do not fit its code's declaration: a key
 * the declaration does not have (a create-topic's fields sent as a delete-topic; an empty field
 * slipped in to shift the signed text), or an empty value in a number or boolean field. Java
 * clients send only the fields of their header classes: ours, the 5.x `RpcRequestHeader` ones
 * every header may carry, and the few of JAVA_ONLY_FIELDS.
 */
import { ACCESS_KEY, SECURITY_TOKEN, SIGNATURE } from '../../protocol/acl.js';
import { RequestCode } from '../../protocol/codes.js';
import type { RemotingCommand } from '../../protocol/command.js';
import type { FieldSpec, HeaderSpec, RequestDeclaration } from '../../protocol/headers/fields.js';
import { UNIQUE_MSG_QUERY_FLAG } from '../../protocol/headers/query.js';
import { requestDeclaration } from '../../protocol/headers/registry.js';

/**
 * Keys any request may carry besides its declared fields: the ACL fields, Java 5.x
 * `RpcRequestHeader` (namespace, namespaced, broker name, oneway, logic queue), and the flag
 * QUERY_MESSAGE adds outside its header (which the signature leaves out too).
 */
const ALWAYS_ALLOWED: ReadonlySet<string> = new Set([
  ACCESS_KEY,
  SIGNATURE,
  SECURITY_TOKEN,
  'ns',
  'nsd',
  'bname',
  'oway',
  'lo',
  UNIQUE_MSG_QUERY_FLAG,
]);

/**
 * Fields of Java 5.5.0's request header classes that our declarations leave out (we do not
 * read them): a Java client sends them when set (lite topics, proxy forwarding, paging of the
 * config lists), so they must not count as strays.
 */
const JAVA_ONLY_FIELDS: ReadonlyMap<number, ReadonlySet<string>> = new Map(
  (
    [
      [RequestCode.PULL_MESSAGE, ['liteTopic', 'proxyFrowardClientId', 'requestSource']],
      [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, ['liteTopic']],
      [RequestCode.GET_ALL_TOPIC_CONFIG, ['dataVersion', 'maxTopicNum', 'topicSeq']],
      [RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, ['dataVersion', 'groupSeq', 'maxGroupNum']],
      [RequestCode.GET_CONSUME_STATS, ['topicList']],
      [RequestCode.CONSUME_MESSAGE_DIRECTLY, ['groupSysFlag', 'topic', 'topicSysFlag']],
      [RequestCode.QUERY_MESSAGE, ['indexType', 'lastKey']],
      [RequestCode.ACK_MESSAGE, ['liteTopic']],
      [RequestCode.CHANGE_MESSAGE_INVISIBLETIME, ['liteTopic', 'suspend']],
      [RequestCode.NOTIFICATION, ['exp', 'expType']],
    ] as Array<[number, string[]]>
  ).map(([code, keys]) => [code, new Set(keys)]),
);

const fieldsByKey = new WeakMap<RequestDeclaration<HeaderSpec>, ReadonlyMap<string, FieldSpec>>();

function declaredFields(decl: RequestDeclaration<HeaderSpec>): ReadonlyMap<string, FieldSpec> {
  let map = fieldsByKey.get(decl);
  if (map === undefined) {
    map = new Map(Object.entries(decl.spec).map(([name, spec]) => [spec.key ?? name, spec]));
    fieldsByKey.set(decl, map);
  }
  return map;
}

/** Why `request`'s fields do not fit its code's declaration, or undefined when they do (or it has none). */
export function fieldsMisfit(request: RemotingCommand): string | undefined {
  const decl = requestDeclaration(request.code);
  const ext = request.extFields;
  if (decl === undefined || ext === undefined) return undefined;
  const fields = declaredFields(decl);
  for (const [key, value] of Object.entries(ext)) {
    const spec = fields.get(key);
    if (spec === undefined) {
      if (ALWAYS_ALLOWED.has(key) || JAVA_ONLY_FIELDS.get(request.code)?.has(key) === true) continue;
      return `Request fields do not fit ${decl.name}: unexpected field ${JSON.stringify(key.slice(0, 64))}`;
    }
    if (value === '' && spec.kind !== 'string')
      return `Request fields do not fit ${decl.name}: field ${JSON.stringify(key)} is empty`;
  }
  return undefined;
}
