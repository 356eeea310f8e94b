/** docs/security.md §2.3's table, rendered from the ACL rules (request-rules.test.ts checks the docs). */
import { RequestCode } from '../../../src/protocol/codes.js';
import { BROKER_ACL_RULES, NAMESRV_UNCHECKED_CODES } from '../../../src/server/acl/request-rules.js';
import { FAULT_INJECTION_REQUEST_CODE } from '../../../src/server/broker/faults.js';

export const CODE_NAMES: ReadonlyMap<number, string> = new Map<number, string>([
  ...Object.entries(RequestCode).map(([name, code]): [number, string] => [code, name]),
  [FAULT_INJECTION_REQUEST_CODE, 'FAULT_INJECTION (ours)'],
]);

/** docs/security.md §2.3's table, from the rules. */
export function renderAclTable(): string {
  const rows = [...BROKER_ACL_RULES]
    .sort(([a], [b]) => a - b)
    .map(([code, rule]) => {
      const needs = rule.admin ? `**admin** — ${rule.text}` : rule.text;
      return `| ${CODE_NAMES.get(code) ?? '?'} (${code}) | broker | ${needs} | ${rule.stricter ?? ''} |`;
    });
  const namesrv = [...NAMESRV_UNCHECKED_CODES]
    .sort((a, b) => a - b)
    .map((code) => `${CODE_NAMES.get(code) ?? '?'} (${code})`)
    .join(', ');
  return [
    '| request | server | needs | stricter than Java because |',
    '|---|---|---|---|',
    ...rows,
    `| ${namesrv} | NameServer | not checked: the NameServer has no ACL (§2.7) | |`,
  ].join('\n');
}
