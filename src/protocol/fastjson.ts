/**
 * Reads JSON written by fastjson. fastjson's default serializer writes non-string map keys bare:
 * integer keys unquoted (`{"brokerAddrs":{0:"127.0.0.1:10911"}}`, docs/protocol.md §7.2) and object
 * keys as raw JSON objects (`{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:5}}`,
 * docs/protocol.md §10.4). `JSON.parse` rejects both, so when it fails we fall back to a small
 * tolerant parser that knows when it is inside a string literal (a `:` inside an address or
 * remark is never a key separator).
 *
 * Result shapes of the fallback: a bare integer key becomes its decimal string (as if quoted);
 * an object whose keys include an object or array is returned as a `Map` from the parsed key to
 * the value (string keys of that object stay strings). Plain JSON never yields a `Map`, so
 * `value instanceof Map` tells an object-keyed map apart.
 */
import { ProtocolError } from '../errors.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

/** Recursive-descent reader for JSON plus fastjson's bare integer and object map keys. */
class TolerantReader {
  private i = 0;
  constructor(private readonly text: string) {}

  parseDocument(): unknown {
    const value = this.value();
    this.skipSpace();
    if (this.i !== this.text.length) this.fail('trailing characters');
    return value;
  }

  private fail(what: string): never {
    throw new SyntaxError(`${what} at position ${this.i}`);
  }

  private skipSpace(): void {
    const t = this.text;
    while (this.i < t.length && isSpace(t.charCodeAt(this.i))) this.i++;
  }

  private peek(): number {
    this.skipSpace();
    if (this.i >= this.text.length) this.fail('unexpected end');
    return this.text.charCodeAt(this.i);
  }

  private expect(c: number): void {
    if (this.peek() !== c) this.fail(`expected '${String.fromCharCode(c)}'`);
    this.i++;
  }

  private value(): unknown {
    const c = this.peek();
    if (c === OPEN_BRACE) return this.object();
    if (c === OPEN_BRACKET) return this.array();
    if (c === QUOTE) return this.string();
    if (c === MINUS || isDigit(c)) return this.number();
    for (const [word, v] of LITERALS) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    return this.fail('unexpected character');
  }

  private string(): string {
    const t = this.text;
    const start = this.i;
    let j = start + 1;
    for (;;) {
      if (j >= t.length) this.fail('unterminated string');
      const c = t.charCodeAt(j);
      if (c === BACKSLASH) j += 2;
      else if (c === QUOTE) break;
      else j++;
    }
    this.i = j + 1;
    // JSON.parse of the literal alone gives exact escape handling (\uXXXX, \n, …).
    return JSON.parse(t.slice(start, j + 1)) as string;
  }

  private numberText(): string {
    const t = this.text;
    const start = this.i;
    let j = start;
    while (j < t.length && /[-+0-9.eE]/.test(t[j]!)) j++;
    this.i = j;
    return t.slice(start, j);
  }

  private number(): number {
    const start = this.i;
    const text = this.numberText();
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(text)) {
      this.i = start;
      this.fail('bad number');
    }
    return Number(text);
  }

  private key(): unknown {
    const c = this.peek();
    if (c === QUOTE) return this.string();
    if (c === OPEN_BRACE) return this.object();
    if (c === OPEN_BRACKET) return this.array();
    if (c === MINUS || isDigit(c)) {
      const start = this.i;
      const text = this.numberText();
      if (!/^-?\d+$/.test(text)) {
        this.i = start;
        this.fail('bare key is not an integer');
      }
      return text;
    }
    return this.fail('bad object key');
  }

  private object(): Record<string, unknown> | Map<unknown, unknown> {
    this.expect(OPEN_BRACE);
    const entries: Array<[unknown, unknown]> = [];
    let objectKeyed = false;
    if (this.peek() === CLOSE_BRACE) {
      this.i++;
      return {};
    }
    for (;;) {
      const k = this.key();
      if (typeof k !== 'string') objectKeyed = true;
      this.expect(COLON);
      entries.push([k, this.value()]);
      const c = this.peek();
      this.i++;
      if (c === CLOSE_BRACE) break;
      if (c !== COMMA) this.fail("expected ',' or '}'");
    }
    if (objectKeyed) return new Map(entries);
    const out: Record<string, unknown> = {};
    for (const [k, v] of entries) {
      // defineProperty keeps a `__proto__` key an own property, as JSON.parse does.
      Object.defineProperty(out, k as string, {
        value: v,
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return out;
  }

  private array(): unknown[] {
    this.expect(OPEN_BRACKET);
    const out: unknown[] = [];
    if (this.peek() === CLOSE_BRACKET) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      const c = this.peek();
      this.i++;
      if (c === CLOSE_BRACKET) return out;
      if (c !== COMMA) this.fail("expected ',' or ']'");
    }
  }
}

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];

/**
 * `JSON.parse` that also accepts fastjson's bare integer keys (read as strings) and bare object
 * keys (the enclosing object is returned as a `Map`). Throws ProtocolError.
 */
export function parseFastjson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return new TolerantReader(text).parseDocument();
    } catch (err) {
      throw new ProtocolError(`invalid JSON: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** Decodes UTF-8 bytes and parses them with `parseFastjson`. */
export function parseFastjsonBytes(bytes: Uint8Array): unknown {
  return parseFastjson(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}
