/**
 * The YAML subset `plain_acl.yml` uses (docs/security.md §2.1): block mappings, block
 * sequences (of scalars or mappings, also at the key's own indent), flow sequences of scalars
 * (`[a, b]`), plain and quoted scalars, `#` comments. Scalars stay strings except true/false and
 * null/~/empty, which is all the ACL file needs; anchors, multi-line scalars and flow mappings
 * are rejected. Written here to keep the package free of a YAML dependency.
 */
import { InvalidArgumentError } from '../../errors.js';

export type YamlValue = string | boolean | null | YamlValue[] | { [key: string]: YamlValue };

interface Line {
  readonly indent: number;
  readonly text: string;
  readonly no: number;
}

/**
 * Errors name the line, never quote it: a malformed line is often a `secretKey` one, and the
 * message reaches the log (at start and on every failed hot reload).
 */
function fail(line: Line | undefined, message: string): never {
  throw new InvalidArgumentError('acl', `YAML line ${line?.no ?? 'end'}: ${message}`);
}

/** Removes a `#` comment that is not inside quotes. */
function stripComment(text: string): string {
  let quote = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || text[i - 1] === ' ' || text[i - 1] === '\t')) return text.slice(0, i);
  }
  return text;
}

function scalar(raw: string, line: Line): YamlValue {
  const t = raw.trim();
  if (t === '' || t === '~' || t === 'null' || t === 'Null' || t === 'NULL') return null;
  if (/^(true|True|TRUE)$/.test(t)) return true;
  if (/^(false|False|FALSE)$/.test(t)) return false;
  if (t.startsWith('"')) {
    if (!t.endsWith('"') || t.length < 2) fail(line, 'unterminated double-quoted string');
    try {
      return JSON.parse(t) as string;
    } catch {
      // JSON.parse's message quotes the text, which may be a secret.
      fail(line, 'invalid escape in a double-quoted string');
    }
  }
  if (t.startsWith("'")) {
    if (!t.endsWith("'") || t.length < 2) fail(line, 'unterminated single-quoted string');
    return t.slice(1, -1).replace(/''/g, "'");
  }
  if (t.startsWith('[')) {
    if (!t.endsWith(']')) fail(line, 'unterminated flow sequence');
    const inner = t.slice(1, -1).trim();
    return inner === '' ? [] : inner.split(',').map((part) => scalar(part, line));
  }
  if (/^[&*!|>{]/.test(t)) fail(line, `unsupported YAML construct starting with ${JSON.stringify(t[0])}`);
  return t;
}

const KEY = /^("[^"]*"|'[^']*'|[^\s'"#][^:]*?)\s*:(?:\s+(.*)|)$/;

class Parser {
  private i = 0;
  constructor(private readonly lines: readonly Line[]) {}

  parseDocument(): YamlValue {
    if (this.lines.length === 0) return null;
    const first = this.lines[0] as Line;
    const value = this.block(first.indent);
    if (this.i < this.lines.length) fail(this.lines[this.i], 'unexpected indentation');
    return value;
  }

  private block(indent: number): YamlValue {
    const line = this.lines[this.i];
    if (line === undefined) return null;
    return line.text === '-' || line.text.startsWith('- ') ? this.sequence(indent) : this.mapping(indent);
  }

  private sequence(indent: number): YamlValue[] {
    const out: YamlValue[] = [];
    for (
      let line = this.lines[this.i];
      line !== undefined && line.indent === indent;
      line = this.lines[this.i]
    ) {
      if (!(line.text === '-' || line.text.startsWith('- '))) break;
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        this.i++;
        const next = this.lines[this.i];
        out.push(next !== undefined && next.indent > indent ? this.block(next.indent) : null);
      } else if (KEY.test(rest) && !rest.startsWith('"') && !rest.startsWith("'")) {
        // "- key: value" opens a mapping whose keys sit where "key" starts.
        const inner = indent + (line.text.length - rest.length);
        (this.lines as Line[])[this.i] = { indent: inner, text: rest, no: line.no };
        out.push(this.mapping(inner));
      } else {
        this.i++;
        out.push(scalar(rest, line));
      }
    }
    return out;
  }

  private mapping(indent: number): { [key: string]: YamlValue } {
    const out: { [key: string]: YamlValue } = Object.create(null) as { [key: string]: YamlValue };
    for (
      let line = this.lines[this.i];
      line !== undefined && line.indent === indent;
      line = this.lines[this.i]
    ) {
      const m = KEY.exec(line.text);
      if (m === null) fail(line, 'expected "key: value"');
      let key = m[1] as string;
      if (key.startsWith('"') || key.startsWith("'")) key = key.slice(1, -1);
      if (key in out) fail(line, `duplicate key ${JSON.stringify(key)}`);
      this.i++;
      const raw = m[2];
      if (raw !== undefined && raw.trim() !== '') {
        out[key] = scalar(raw, line);
        continue;
      }
      const next = this.lines[this.i];
      const nestedSeq =
        next !== undefined && next.indent === indent && (next.text === '-' || next.text.startsWith('- '));
      out[key] = next !== undefined && (next.indent > indent || nestedSeq) ? this.block(next.indent) : null;
    }
    return out;
  }
}

/** Parses `text`; throws InvalidArgumentError (field `acl`) naming the line. */
export function parseYamlSubset(text: string): YamlValue {
  const lines: Line[] = [];
  text.split(/\r?\n/).forEach((rawLine, idx) => {
    if (/^ *\t/.test(rawLine)) fail({ indent: 0, text: '', no: idx + 1 }, 'tabs are not allowed in YAML');
    const body = stripComment(rawLine).trimEnd();
    if (body.trim() === '' || body.trim() === '---') return;
    const indent = body.length - body.trimStart().length;
    lines.push({ indent, text: body.trimStart(), no: idx + 1 });
  });
  return new Parser(lines).parseDocument();
}
