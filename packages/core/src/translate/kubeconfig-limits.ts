// Bounds on kubeconfig text, checked before the YAML library builds anything from it: the text
// is any tenant's, and the daemon parses it on its only thread. The library recurses once per
// nesting level and overflows the stack at a few hundred; keys and list entries bound its work.

import { Lexer } from 'yaml';

export const KUBECONFIG_LIMITS = {
  /**
   * Characters. A provisioner's kubeconfig is a few KiB, a ten-certificate CA bundle about 30
   * KiB; the worst text within this costs about a third of a second under `--jitless`.
   */
  maxLength: 256 * 1024,
  /** Nesting of mappings and lists; a kubeconfig needs about 8 (extensions, exec env). */
  maxDepth: 64,
  /** Keys and list entries: about 15 per cluster, user and context, so a hundred clusters fit. */
  maxNodes: 2_000,
  /** Alias references (`*name`); kubeconfigs written by tools use none. */
  maxAliases: 100,
  /**
   * Everything the lexer yields, spaces and line breaks too (500 KiB of blank lines take
   * seconds); a kubeconfig at the key limit has about 10,000.
   */
  maxTokens: 20_000,
} as const;

type YamlShape =
  /** Within every limit: the lexemes read, for the parser (lexing is most of parsing's cost). */
  | { readonly ok: true; readonly lexemes: readonly string[] }
  /** Over a limit: which, as a phrase after "the kubeconfig". */
  | { readonly ok: false; readonly overLimit: string };

/**
 * Whether `text` is within the limits: one pass over the library's own (linear) lexer, stopping
 * at the first limit exceeded; its lexemes go to the parser, so the text is lexed once.
 */
export function scanYamlShape(text: string): YamlShape {
  const over = (overLimit: string): YamlShape => ({ ok: false, overLimit });
  const { maxLength, maxDepth, maxNodes, maxAliases, maxTokens } = KUBECONFIG_LIMITS;
  if (text.length > maxLength) return over(`is larger than ${maxLength / 1024} KiB`);
  const lexemes: string[] = [];
  let flowDepth = 0;
  let nodes = 0;
  let aliases = 0;
  let tokens = 0;
  // Columns of the block collections open here. A nested block collection starts at a greater
  // column than its parent, except a list under a key at the key's own column, so twice this
  // stack's height bounds the block nesting.
  const blockColumns: number[] = [];
  let column = 0;
  // The next content opens a block level: it starts a line, or follows `- `, `? ` or a leading `: `.
  let leading = true;
  for (const lexeme of new Lexer().lex(text)) {
    lexemes.push(lexeme);
    const first = lexeme[0];
    // Markers the lexer adds for the parser: no source text.
    if (first === '\x02' || first === '\x18' || first === '\x1f') continue;
    tokens += 1;
    if (tokens > maxTokens) return over(`has more than ${maxTokens} YAML tokens`);
    if (lexeme === '' || lexeme === '\n' || lexeme === '\r\n') {
      column = 0;
      leading = true;
      continue;
    }
    const start = column;
    const newline = lexeme.lastIndexOf('\n');
    column = newline < 0 ? column + lexeme.length : lexeme.length - newline - 1;
    if (first === ' ' || first === '\t' || first === '#') continue;
    if (flowDepth === 0 && leading) {
      while ((blockColumns.at(-1) ?? -1) > start) blockColumns.pop();
      if (blockColumns.at(-1) !== start) blockColumns.push(start);
    }
    leading = flowDepth === 0 && (lexeme === '-' || lexeme === '?' || (lexeme === ':' && leading));
    if (lexeme === '[' || lexeme === '{') flowDepth += 1;
    else if ((lexeme === ']' || lexeme === '}') && flowDepth > 0) flowDepth -= 1;
    if (lexeme === '[' || lexeme === '{' || lexeme === ',' || lexeme === '-' || lexeme === '?')
      nodes += 1;
    else if (lexeme === ':' && flowDepth === 0) nodes += 1;
    else if (first === '*') aliases += 1;
    if (blockColumns.length + flowDepth > maxDepth)
      return over(`is nested more than ${maxDepth} levels deep`);
    if (nodes > maxNodes) return over(`has more than ${maxNodes} keys and list entries`);
    if (aliases > maxAliases) return over(`has more than ${maxAliases} aliases`);
  }
  return { ok: true, lexemes };
}
