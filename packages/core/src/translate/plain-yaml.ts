// Provisioners' kubeconfigs are block YAML of one narrow shape (Go's marshaller: `key: value`
// lines, `- ` entries, one-line plain or quoted strings, `{}`). Through the YAML library each
// cost about 270 KiB of garbage and 0.5 ms under `--jitless`, most of a cold start's
// allocation; this reads that shape directly.
//
// It answers only where the library's answer is certain to be the same (every construct it
// accepts means one thing under YAML 1.1) and stays far inside KUBECONFIG_LIMITS. Anything else
// (comments, blank lines, numbers, nulls, escapes, anchors, flow content, duplicate keys, deep
// nesting) returns undefined, and the library reads the text with its checks and messages.

// Far inside KUBECONFIG_LIMITS: a line holds at most two keys and entries and about ten tokens.
const MAX_LINES = 800;
const MAX_DEPTH = 16;

const KEY_LINE = /^([A-Za-z][A-Za-z0-9_.-]{0,252}):(?: (?! )(.*))?$/;
const PLAIN = /^-{0,2}[A-Za-z][A-Za-z0-9_./:+=@%~,-]*$/;
const DOUBLE_QUOTED = /^"[\x20\x21\x23-\x5b\x5d-\x7e]*"$/;
const SINGLE_QUOTED = /^'[\x20-\x26\x28-\x7e]*'$/;
// The YAML 1.1 schema's words (the library's own tests): booleans are read, nulls left to it.
const TRUE = /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const FALSE = /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
const NULL = /^(?:[Nn]ull|NULL)$/;

type YamlMap = Readonly<Record<string, unknown>>;

interface Line {
  readonly indent: number;
  readonly content: string;
}

/** Thrown inside the reader when the text leaves the shape; never escapes it. */
const OUTSIDE = new Error('outside the plain shape');

function scalar(text: string): unknown {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (DOUBLE_QUOTED.test(text) || SINGLE_QUOTED.test(text)) return text.slice(1, -1);
  if (!PLAIN.test(text) || text.endsWith(':') || NULL.test(text)) throw OUTSIDE;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  return text;
}

class Reader {
  private at = 0;

  constructor(private readonly lines: Line[]) {}

  done(): boolean {
    return this.at === this.lines.length;
  }

  /** The mapping whose keys sit at `indent`, from the current line on. */
  map(indent: number, depth: number): YamlMap {
    if (depth > MAX_DEPTH) throw OUTSIDE;
    const map: Record<string, unknown> = {};
    const keys = new Set<string>();
    while (!this.done()) {
      const line = this.lines[this.at] as Line;
      if (line.indent < indent) break;
      // A continuation line or a stray entry.
      if (line.indent > indent || line.content.startsWith('-')) throw OUTSIDE;
      const match = KEY_LINE.exec(line.content);
      if (match === null) throw OUTSIDE;
      const key = match[1] as string;
      // A key the schema reads as a boolean or null becomes another string in the library.
      if (keys.has(key) || TRUE.test(key) || FALSE.test(key) || NULL.test(key)) throw OUTSIDE;
      keys.add(key);
      this.at += 1;
      const rest = match[2];
      map[key] = rest === undefined ? this.nested(indent, depth) : scalar(rest);
    }
    return map;
  }

  /** The block under a `key:` at `indent`: deeper lines, or entries at its own column. */
  private nested(indent: number, depth: number): unknown {
    const next = this.lines[this.at];
    if (next === undefined || next.indent < indent) throw OUTSIDE;
    if (next.indent === indent) {
      if (!next.content.startsWith('- ')) throw OUTSIDE;
      return this.sequence(indent, depth + 1);
    }
    return next.content.startsWith('-')
      ? this.sequence(next.indent, depth + 1)
      : this.map(next.indent, depth + 1);
  }

  /** The entries `- ` at `indent`. */
  private sequence(indent: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw OUTSIDE;
    const items: unknown[] = [];
    while (!this.done()) {
      const line = this.lines[this.at] as Line;
      if (line.indent < indent || (line.indent === indent && !line.content.startsWith('-'))) break;
      if (line.indent > indent || !line.content.startsWith('- ')) throw OUTSIDE;
      const rest = line.content.slice(2);
      if (KEY_LINE.test(rest)) {
        // `- key: value` opens a mapping whose keys sit two columns in.
        this.lines[this.at] = { indent: indent + 2, content: rest };
        items.push(this.map(indent + 2, depth + 1));
      } else {
        items.push(scalar(rest));
        this.at += 1;
      }
    }
    return items;
  }
}

/** The text's mapping when it has the plain shape; undefined for the library to read. */
export function readPlainYaml(text: string): YamlMap | undefined {
  const raw = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (raw.length > MAX_LINES) return undefined;
  const lines: Line[] = [];
  for (const line of raw) {
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent += 1;
    // Blank lines and trailing spaces are read by the library.
    if (indent === line.length || line.endsWith(' ')) return undefined;
    lines.push({ indent, content: indent === 0 ? line : line.slice(indent) });
  }
  if (lines[0]?.indent !== 0) return undefined;
  try {
    const reader = new Reader(lines);
    const root = reader.map(0, 0);
    return reader.done() ? root : undefined;
  } catch (error) {
    if (error === OUTSIDE) return undefined;
    throw error;
  }
}
