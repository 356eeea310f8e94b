/**
 * Reads JSON written by fastjson. fastjson's default serializer writes non-string map keys
 * unquoted (`{"brokerAddrs":{0:"127.0.0.1:10911"}}`, docs/protocol.md §7.2), which `JSON.parse`
 * rejects. We quote such keys with a scan that knows when it is inside a string literal, so
 * a `:` inside an address or remark is never mistaken for a key separator.
 */
import { ProtocolError } from '../errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Returns `text` with every bare integer object key quoted; the same string when there is none. */
export function quoteBareIntegerKeys(text: string): string {
  let out: string[] | undefined;
  let copiedUpTo = 0;
  let inString = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      continue;
    }
    if (c !== OPEN_BRACE && c !== COMMA) continue;
    let j = i + 1;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    const keyStart = j;
    if (j < n && text.charCodeAt(j) === MINUS) j++;
    const digitsStart = j;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
    if (j === digitsStart) continue;
    const keyEnd = j;
    while (j < n && isSpace(text.charCodeAt(j))) j++;
    if (j >= n || text.charCodeAt(j) !== COLON) continue;
    out ??= [];
    out.push(text.slice(copiedUpTo, keyStart), '"', text.slice(keyStart, keyEnd), '"');
    copiedUpTo = keyEnd;
    i = keyEnd - 1;
  }
  if (out === undefined) return text;
  out.push(text.slice(copiedUpTo));
  return out.join('');
}

/** `JSON.parse` that also accepts fastjson's unquoted integer keys. Throws ProtocolError. */
export function parseFastjson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(quoteBareIntegerKeys(text));
    } catch (err) {
      throw new ProtocolError(`invalid JSON: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** Decodes UTF-8 bytes and parses them with `parseFastjson`. */
export function parseFastjsonBytes(bytes: Uint8Array): unknown {
  return parseFastjson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}
