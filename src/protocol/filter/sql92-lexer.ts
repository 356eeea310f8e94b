/**
 * The SQL92 selector's tokens (`SelectorParser.jj`): read lazily, like JavaCC's token manager, so
 * only tokens the parser looks at are read (a bad character after a complete expression is only
 * an error when the parser peeks at it).
 */

export type Kind =
  | 'NOT'
  | 'AND'
  | 'OR'
  | 'BETWEEN'
  | 'IN'
  | 'TRUE'
  | 'FALSE'
  | 'NULL'
  | 'IS'
  | 'DEC'
  | 'FLOAT'
  | 'STR'
  | 'ID'
  | '='
  | '<>'
  | '>'
  | '>='
  | '<'
  | '<='
  | '('
  | ')'
  | ','
  | '+'
  | '-'
  | 'EOF';

export interface Token {
  readonly kind: Kind;
  readonly text: string;
  readonly pos: number;
}

const KEYWORDS = new Set(['NOT', 'AND', 'OR', 'BETWEEN', 'IN', 'TRUE', 'FALSE', 'NULL', 'IS']);
const OPERATORS = ['<>', '>=', '<=', '=', '>', '<', '(', ')', ',', '+', '-'] as const;
const DEC_RE = /0|[1-9][0-9]*[lL]?/y;
const FLOAT_RE = /[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+/y;
const ID_RE = /[A-Za-z_$][A-Za-z0-9_$]*/y;
const STR_RE = /'(?:''|[^'])*'/y;
const LINE_COMMENT_RE = /--[^\n\r]*(?:\r\n|\n|\r)/y;
const BLOCK_COMMENT_RE = /\/\*[^*]*\*+(?:[^/*][^*]*\*+)*\//y;

function matchAt(re: RegExp, text: string, pos: number): string | undefined {
  re.lastIndex = pos;
  return re.exec(text)?.[0];
}

export class Lexer {
  private pos = 0;
  private readonly buffered: Token[] = [];
  constructor(
    private readonly text: string,
    private readonly fail: (msg: string) => never,
  ) {}

  peek(k = 0): Token {
    while (this.buffered.length <= k) this.buffered.push(this.read());
    return this.buffered[k]!;
  }

  next(): Token {
    const t = this.peek();
    this.buffered.shift();
    return t;
  }

  private read(): Token {
    const s = this.text;
    for (;;) {
      while (this.pos < s.length && ' \t\n\r\f'.includes(s[this.pos]!)) this.pos++;
      const comment = matchAt(LINE_COMMENT_RE, s, this.pos) ?? matchAt(BLOCK_COMMENT_RE, s, this.pos);
      if (comment === undefined) break;
      this.pos += comment.length;
    }
    const pos = this.pos;
    if (pos >= s.length) return { kind: 'EOF', text: '', pos };
    const take = (kind: Kind, text: string): Token => {
      this.pos += text.length;
      return { kind, text, pos };
    };
    const c = s[pos]!;
    if (/[0-9.]/.test(c)) {
      const dec = matchAt(DEC_RE, s, pos) ?? '';
      const flt = matchAt(FLOAT_RE, s, pos) ?? '';
      if (flt.length > dec.length) return take('FLOAT', flt);
      if (dec.length > 0) return take('DEC', dec);
    }
    const id = matchAt(ID_RE, s, pos);
    if (id !== undefined) {
      const upper = id.toUpperCase();
      return take(KEYWORDS.has(upper) ? (upper as Kind) : 'ID', id);
    }
    if (c === "'") {
      const str = matchAt(STR_RE, s, pos);
      if (str === undefined) this.fail(`unterminated string at ${pos}`);
      return take('STR', str);
    }
    for (const op of OPERATORS) if (s.startsWith(op, pos)) return take(op, op);
    return this.fail(`unexpected character ${JSON.stringify(c)} at ${pos}`);
  }
}
