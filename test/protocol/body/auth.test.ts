/**
 * ACL 2.0 admin bodies and headers (codes 3001–3010) against fixtures written by hand from Java
 * 5.5.0's classes: fastjson's sorted keys, `UserInfo`/`AclInfo` field names, absent fields left
 * out, and an empty answer body meaning "none".
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtocolError } from '../../../src/errors.js';
import { RequestCode } from '../../../src/protocol/codes.js';
import {
  encodeAclInfo,
  encodeAclInfoList,
  encodeUserInfo,
  encodeUserInfoList,
  parseAclInfo,
  parseAclInfoList,
  parseUserInfo,
  parseUserInfoList,
} from '../../../src/protocol/body/auth.js';
import * as h from '../../../src/protocol/headers/index.js';
import { requestDeclaration } from '../../../src/protocol/headers/registry.js';

const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');

// What Java's JSON.toJSONString(UserInfo) writes for a user the broker has (GET_USER's body).
const JAVA_USER = '{"password":"s3cret","userStatus":"enable","userType":"Normal","username":"alice"}';
// AclInfo.of("User:alice", ["Topic:orders","Group:billing"], ["Pub","Sub"], ["127.0.0.0/8"], "Allow").
const JAVA_ACL =
  '{"policies":[{"entries":[' +
  '{"actions":["Pub","Sub"],"decision":"Allow","resource":"Topic:orders","sourceIps":["127.0.0.0/8"]},' +
  '{"actions":["Pub","Sub"],"decision":"Allow","resource":"Group:billing","sourceIps":["127.0.0.0/8"]}' +
  '],"policyType":"Custom"}],"subject":"User:alice"}';

describe('ACL 2.0 admin request declarations', () => {
  it('are RocketMQ 5.5.0 RequestCode 3001–3010 with Java header field names', () => {
    const expected: Array<[h.RequestDeclaration<h.HeaderSpec>, number, string, string[]]> = [
      [h.AuthCreateUser as never, 3001, 'AUTH_CREATE_USER', ['username']],
      [h.AuthUpdateUser as never, 3002, 'AUTH_UPDATE_USER', ['username']],
      [h.AuthDeleteUser as never, 3003, 'AUTH_DELETE_USER', ['username']],
      [h.AuthGetUser as never, 3004, 'AUTH_GET_USER', ['username']],
      [h.AuthListUser as never, 3005, 'AUTH_LIST_USER', ['filter']],
      [h.AuthCreateAcl as never, 3006, 'AUTH_CREATE_ACL', ['subject']],
      [h.AuthUpdateAcl as never, 3007, 'AUTH_UPDATE_ACL', ['subject']],
      [h.AuthDeleteAcl as never, 3008, 'AUTH_DELETE_ACL', ['subject', 'policyType', 'resource']],
      [h.AuthGetAcl as never, 3009, 'AUTH_GET_ACL', ['subject']],
      [h.AuthListAcl as never, 3010, 'AUTH_LIST_ACL', ['subjectFilter', 'resourceFilter']],
    ];
    for (const [decl, code, name, fields] of expected) {
      assert.equal(decl.code, code, name);
      assert.equal(decl.name, name);
      assert.equal(RequestCode[name as keyof typeof RequestCode], code);
      assert.deepEqual(Object.keys(decl.spec), fields, name);
      assert.equal(requestDeclaration(code), decl, `${name} is in the registry`);
    }
  });

  it('encode the header as extFields and leave absent filters out', () => {
    assert.deepEqual(h.AuthCreateUser.encode({ username: 'alice' }), { username: 'alice' });
    assert.deepEqual(h.AuthListAcl.encode({ subjectFilter: 'User:a' }), { subjectFilter: 'User:a' });
    assert.deepEqual(h.AuthDeleteAcl.encode({ subject: 'User:a', resource: 'Topic:T' }), {
      subject: 'User:a',
      resource: 'Topic:T',
    });
    assert.throws(() => h.decodeRequestHeader(h.AuthGetUser, {}), ProtocolError);
  });
});

describe('UserInfo and AclInfo bodies', () => {
  it('write what fastjson writes for the same objects', () => {
    assert.equal(
      encodeUserInfo({
        username: 'alice',
        password: 's3cret',
        userType: 'Normal',
        userStatus: 'enable',
      }).toString(),
      JAVA_USER,
    );
    assert.equal(
      encodeUserInfo({ username: 'bob', password: 'x' }).toString(),
      '{"password":"x","username":"bob"}',
    );
    const entry = (resource: string) => ({
      resource,
      actions: ['Pub', 'Sub'],
      sourceIps: ['127.0.0.0/8'],
      decision: 'Allow',
    });
    const acl = {
      subject: 'User:alice',
      policies: [{ policyType: 'Custom', entries: [entry('Topic:orders'), entry('Group:billing')] }],
    };
    assert.equal(encodeAclInfo(acl).toString(), JAVA_ACL);
    assert.equal(encodeAclInfoList([acl]).toString(), `[${JAVA_ACL}]`);
    assert.equal(
      encodeUserInfoList([{ username: 'a' }, { username: 'b' }]).toString(),
      '[{"username":"a"},{"username":"b"}]',
    );
  });

  it('read Java answers, ignoring unknown keys', () => {
    assert.deepEqual(parseUserInfo(utf8(JAVA_USER)), {
      username: 'alice',
      password: 's3cret',
      userType: 'Normal',
      userStatus: 'enable',
    });
    assert.deepEqual(parseUserInfoList(utf8(`[${JAVA_USER},{"username":"bob","extra":1}]`)), [
      { username: 'alice', password: 's3cret', userType: 'Normal', userStatus: 'enable' },
      { username: 'bob' },
    ]);
    const acl = parseAclInfo(utf8(JAVA_ACL));
    assert.equal(acl?.subject, 'User:alice');
    assert.equal(acl?.policies[0]?.policyType, 'Custom');
    assert.deepEqual(
      acl?.policies[0]?.entries.map((e) => [
        e.resource,
        e.actions.join('|'),
        e.sourceIps?.join(','),
        e.decision,
      ]),
      [
        ['Topic:orders', 'Pub|Sub', '127.0.0.0/8', 'Allow'],
        ['Group:billing', 'Pub|Sub', '127.0.0.0/8', 'Allow'],
      ],
    );
    // A Default policy with no source IPs (fastjson leaves the null list out).
    const noIps = parseAclInfoList(
      utf8(
        '[{"policies":[{"entries":[{"actions":["Sub"],"decision":"Deny","resource":"*"}],"policyType":"Default"}],"subject":"User:b"}]',
      ),
    );
    assert.deepEqual(noIps, [
      {
        subject: 'User:b',
        policies: [
          { policyType: 'Default', entries: [{ resource: '*', actions: ['Sub'], decision: 'Deny' }] },
        ],
      },
    ]);
  });

  it('an empty answer body is "none"; a malformed one is a ProtocolError', () => {
    assert.equal(parseUserInfo(undefined), undefined);
    assert.equal(parseUserInfo(new Uint8Array()), undefined);
    assert.equal(parseAclInfo(undefined), undefined);
    assert.deepEqual(parseUserInfoList(undefined), []);
    assert.deepEqual(parseAclInfoList(new Uint8Array()), []);
    assert.throws(() => parseUserInfo(utf8('{"password":"x"}')), ProtocolError);
    assert.throws(() => parseUserInfoList(utf8('{"username":"a"}')), ProtocolError);
    assert.throws(() => parseAclInfo(utf8('{"subject":"User:a","policies":{}}')), ProtocolError);
    assert.throws(
      () => parseAclInfo(utf8('{"subject":"User:a","policies":[{"entries":[{"actions":"Pub"}]}]}')),
      ProtocolError,
    );
  });
});
