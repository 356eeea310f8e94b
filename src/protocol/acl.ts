/**
 * ACL request signing (Java `AclClientRPCHook`, docs/protocol.md §9; identical in 4.9.7 and 5.x):
 * Base64(HmacSHA1(secretKey, values of the extFields sorted by key, then the body)).
 */
import { createHmac } from 'node:crypto';
import type { RemotingCommand } from './command.js';

export const ACCESS_KEY = 'AccessKey';
export const SECRET_KEY = 'SecretKey';
export const SIGNATURE = 'Signature';
export const SECURITY_TOKEN = 'SecurityToken';
/** Added by QUERY_MESSAGE outside its header; servers leave it out of the signed content. */
const UNIQUE_MSG_QUERY_FLAG = '_UNIQUE_KEY_QUERY';

/**
 * The signature over `extFields` (minus `Signature` and `_UNIQUE_KEY_QUERY`) and `body`, exactly
 * as a broker or namesrv recomputes it. Keys sort by UTF-16 code unit, like Java's TreeMap.
 */
export function calculateSignature(
  extFields: Readonly<Record<string, string>>,
  body: Uint8Array | undefined,
  secretKey: string,
): string {
  const keys = Object.keys(extFields).sort();
  const hmac = createHmac('sha1', Buffer.from(secretKey, 'utf8'));
  let content = '';
  for (const k of keys) {
    if (k === SIGNATURE || k === UNIQUE_MSG_QUERY_FLAG) continue;
    content += extFields[k];
  }
  hmac.update(content, 'utf8');
  if (body && body.length > 0) hmac.update(body);
  return hmac.digest('base64');
}

/**
 * Signs `cmd` in place: adds `AccessKey`, `SecurityToken` (when given) and `Signature` to its
 * extFields. Call it last, after every header field is in extFields. Returns the signature.
 */
export function signRequest(
  cmd: RemotingCommand,
  accessKey: string,
  secretKey: string,
  securityToken?: string,
): string {
  const ext = (cmd.extFields ??= {});
  ext[ACCESS_KEY] = accessKey;
  if (securityToken !== undefined && securityToken !== null) ext[SECURITY_TOKEN] = securityToken;
  delete ext[SIGNATURE];
  const signature = calculateSignature(ext, cmd.body, secretKey);
  ext[SIGNATURE] = signature;
  return signature;
}

/** Server side: whether `cmd` carries a valid signature for `secretKey`. */
export function verifySignature(cmd: RemotingCommand, secretKey: string): boolean {
  const ext = cmd.extFields;
  const given = ext?.[SIGNATURE];
  if (!ext || given === undefined) return false;
  return calculateSignature(ext, cmd.body, secretKey) === given;
}
