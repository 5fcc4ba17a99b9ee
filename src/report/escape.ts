/** Escaping for each output format, kept in one place so every renderer agrees. */

/** Characters XML 1.0 forbids even when escaped (C0 controls other than tab, LF, CR; lone surrogates; U+FFFE/FFFF). */
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text or attribute value in XML: escapes the five special characters and drops forbidden ones. */
export function escapeXml(text: string): string {
  return text
    .replace(XML_INVALID, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Attribute values also keep their line breaks as character references (a raw newline is normalised to a space by XML parsers). */
export function escapeXmlAttr(text: string): string {
  return escapeXml(text).replace(/\r/g, '&#13;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** Text content in HTML: `&`, `<` and `>`; quotes need escaping only inside attribute values. */
export function escapeHtmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Text or an attribute value in the HTML report. */
export function escapeHtml(text: string): string {
  return escapeHtmlText(text).replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/**
 * Plain text in GitHub-flavoured Markdown (summary.md), so that it renders as the text itself.
 * A backslash goes before each character that would mean something there: `\`, `*`, backticks,
 * `[`, `]`, `~` (emphasis, code, links, strikethrough), `<` and `>` (raw HTML, which GitHub
 * renders; autolinks; block quotes), `|` (the end of a table cell), `_` where it could open or
 * close emphasis, `&` where it would read as a character reference, and a marker at the start
 * (`#`, `-`, `+`, `1.`) that would make a heading or a list. Line breaks become spaces and the
 * ends are trimmed, as a renderer shows a paragraph's text, so a table row stays on one line.
 * No HTML entities: `'`, `"` and `&` are written as they are.
 */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\s*[\r\n]\s*/g, ' ')
    .trim()
    .replace(/[\\`*[\]~<>|]/g, '\\$&')
    .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, '\\_')
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, '\\&')
    .replace(/^(?:#|[-+](?=\s|-|$))/, '\\$&')
    .replace(/^(\d{1,9})([.)])(?=\s|$)/, '$1\\$2');
}

/** A fenced code block that cannot be closed early by backticks inside the content. */
export function mdFence(text: string, lang = ''): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${lang}\n${text}\n${fence}`;
}

/**
 * JSON for an inline `<script type="application/json">`: `<` becomes `\u003c`, so neither
 * `</script>` nor `<!--` can appear; U+2028/2029 are escaped for old parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Library code inlined into a `<script>`/`<style>`: `</script` inside a JS string is written `<\/script`, which means the same. */
export function inlineSafe(code: string, tag: 'script' | 'style'): string {
  return code.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');
}

/**
 * A Markdown table cell holding a code span: inside code spans entities are shown
 * literally, so only `|` (still a cell separator in GFM tables) and line breaks are
 * handled; the span's fence is longer than any backtick run inside.
 */
export function mdCodeCell(text: string): string {
  const body = text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = body.startsWith('`') || body.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}
