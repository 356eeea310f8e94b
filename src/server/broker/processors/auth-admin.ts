/**
 * ACL 2.0 admin requests (AUTH_CREATE_USER 3001 … AUTH_LIST_ACL 3010) on the embedded broker:
 * its ACL is 1.0 (`plain_acl.yml`, docs/security.md), so it keeps no users or ACL entries to
 * administer. Each is answered REQUEST_CODE_NOT_SUPPORTED (as a 4.9 broker answers them), with a
 * remark saying so; the Admin client turns that into AuthAdminNotSupportedError.
 */
import { ResponseCode } from '../../../protocol/codes.js';
import { createResponse } from '../../../protocol/command.js';
import { AUTH_ADMIN_REQUESTS } from '../../../protocol/headers/auth-admin.js';
import type { RequestHandler } from '../../../remoting/options.js';

export const EMBEDDED_AUTH_ADMIN_REMARK =
  'the rocketmq-ts embedded broker has ACL 1.0 (plain_acl.yml) only, no ACL 2.0 users or ACL entries';

export function authAdminProcessors(): Array<[number, RequestHandler]> {
  return AUTH_ADMIN_REQUESTS.map((decl) => [
    decl.code,
    (request) =>
      createResponse(
        request,
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
        `request type ${decl.code} (${decl.name}) not supported: ${EMBEDDED_AUTH_ADMIN_REMARK}`,
      ),
  ]);
}
