import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { escapeMarkdown } from '../../src/report/escape.ts';
import { renderMarkdown, writeReports } from '../../src/report/index.ts';
import { fixtureSummary, LEAKED_SECRET } from './fixture.ts';

/** Splits a GFM table row on unescaped pipes (what GitHub does). */
function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** The text a CommonMark renderer shows for inline text: a backslash before ASCII punctuation is dropped. */
function shown(md: string): string {
  return md.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

/** Characters in escaped text that would still mean something in Markdown (not preceded by a backslash). */
function liveSpecials(md: string): string[] {
  const found: string[] = [];
  for (let i = 0; i < md.length; i++) {
    if (md[i] === '\\') i++;
    else if ('*`[]<>|~'.includes(md[i])) found.push(md[i]);
  }
  return found;
}

/** The Markdown outside fenced code blocks (inside one, every character is shown as written). */
function outsideFences(md: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    const m = /^(`{3,})/.exec(line);
    if (fence === null && m) fence = m[1];
    else if (fence !== null && line === fence) fence = null;
    else if (fence === null) out.push(line);
  }
  return out.join('\n');
}

function tableAfter(md: string, heading: string): string[] {
  const lines = md.split('\n');
  const start = lines.indexOf(heading);
  const rows: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].startsWith('|')) rows.push(lines[i]);
    else if (rows.length) break;
  }
  return rows;
}

describe('renderMarkdown', () => {
  it('has a verdict heading and one invariant row per invariant, failures first', () => {
    const s = fixtureSummary();
    const md = renderMarkdown(s);
    expect(md.split('\n')[0]).toBe('## paystorm ❌ FAIL');
    const rows = tableAfter(md, '### Invariants');
    expect(rows).toHaveLength(2 + s.invariants.length);
    const statuses = rows.slice(2).map((r) => cells(r)[0]);
    expect(statuses).toEqual(['❌ fail', '❌ fail', '❌ fail', '💥 error', '⚪ not exercised', '✅ pass', '✅ pass', '✅ pass']);
    for (const r of rows) expect(cells(r)).toHaveLength(6);
  });

  it('lists thresholds, breached first, expressions as code', () => {
    const rows = tableAfter(renderMarkdown(fixtureSummary()), '### Thresholds');
    expect(rows).toHaveLength(2 + 3);
    expect(cells(rows[2])).toEqual(['❌ breached', 'http_req_duration{op:create}', '`p(99)<800`', '1234.50']);
  });

  it('escapes | and newlines so a cell cannot break the table', () => {
    const s = fixtureSummary();
    s.invariants[0].reason = 'left | right\nnext line <b>';
    s.thresholds[0].expr = 'rate<0.05 | x';
    const md = renderMarkdown(s);
    const inv = tableAfter(md, '### Invariants');
    for (const r of inv) expect(cells(r)).toHaveLength(6);
    const row = inv.find((r) => r.includes('auth-401'))!;
    expect(cells(row)[5]).toBe('left \\| right next line \\<b\\>');
    const thr = tableAfter(md, '### Thresholds');
    for (const r of thr) expect(cells(r)).toHaveLength(4);
    expect(thr.some((r) => r.includes('`rate<0.05 \\| x`'))).toBe(true);
  });

  it('shows evidence of failures and error stacks in fenced blocks, never a secret', () => {
    const md = renderMarkdown(fixtureSummary());
    expect(md).toContain('req_8c1f0a9e2b');
    expect(md).toContain('idempotency keys: race-12');
    expect(md).toContain('at walkPages (src/oracle/list.ts:88:21)');
    expect(md).not.toContain(LEAKED_SECRET);
  });

  it('uses a longer fence when evidence contains backticks', () => {
    const s = fixtureSummary();
    s.invariants[1].examples = [{ message: 'has ``` inside' }];
    const md = renderMarkdown(s);
    expect(md).toContain('````text\n--- example 1 of 2\nhas ``` inside\n````');
  });

  it('summary.md shows apostrophes, ampersands, pipes, backticks and angle brackets as written: Markdown escapes, no HTML entities', async () => {
    const s = fixtureSummary();
    const finding = `The server's clock is 3 s ahead of ours: "Date" & X-RateLimit-Reset agree`;
    const reason = 'body <script>alert(1)</script> | had `id` & *stars*, [a](http://x) and &copy;';
    const title = `Tom's <b>bold</b> & "quoted" title`;
    s.findings = [{ id: 'server-clock-offset', level: 'warning', text: finding }];
    s.invariants[0].status = 'fail';
    s.invariants[0].violations = 1;
    s.invariants[0].title = title;
    s.invariants[0].reason = reason;
    const root = await mkdtemp(join(tmpdir(), 'paystorm-md-'));
    try {
      await writeReports(join(root, 'run'), s, { latestDir: join(root, 'latest') });
      const md = await readFile(join(root, 'run', 'summary.md'), 'utf8');
      expect(md).not.toContain('&#39;');
      expect(md).not.toContain('&quot;');
      // The finding reads as written; its apostrophe and quotes are plain characters.
      const line = md.split('\n').find((l) => l.includes('server-clock-offset'))!;
      expect(line).toContain(`The server's clock is 3 s ahead of ours: "Date" & X-RateLimit-Reset agree`);
      // In the invariant's row the pipe is escaped (six cells still), and the cells show the text as written.
      const row = tableAfter(md, '### Invariants').find((r) => r.includes('auth-401'))!;
      expect(cells(row)).toHaveLength(6);
      expect(cells(row)[5]).toContain('\\|');
      expect(shown(cells(row)[5])).toBe(reason);
      expect(shown(cells(row)[1])).toBe(`**auth-401** ${title}`);
      expect(liveSpecials(cells(row)[5])).toEqual([]);
      // No raw HTML outside the report's own tags and the fenced evidence: <script> and <b> stay text.
      const prose = outsideFences(md);
      expect(prose).toContain('\\<script\\>');
      expect(prose).not.toMatch(/(?<!\\)<script/);
      expect(prose).not.toMatch(/(?<!\\)<b>/);
      expect(md).toContain('\\&copy;');
      // The <details> summary line is raw HTML, where Markdown is not read: there the text is escaped as HTML text.
      const summaryLine = md.split('\n').find((l) => l.startsWith('<details><summary>') && l.includes('auth-401'))!;
      expect(summaryLine).toContain(`auth-401: Tom's &lt;b&gt;bold&lt;/b&gt; &amp; "quoted" title (1 violation)</summary>`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('escapeMarkdown', () => {
  it('renders back to the text it was given, with nothing left that Markdown would read', () => {
    const texts = [
      "The server's clock",
      'a | b `c` *d* _e_ [f](g) <h> ~i~ \\j & k',
      'snake_case_name and __dunder__ and _lead',
      'AT&T, &amp; and &#39; as written',
    ];
    for (const t of texts) {
      const md = escapeMarkdown(t);
      expect(shown(md)).toBe(t);
      expect(liveSpecials(md)).toEqual([]);
    }
    // Underscores inside a word cannot start emphasis and are left alone; the others are escaped.
    expect(escapeMarkdown('snake_case_name and _lead')).toBe('snake_case_name and \\_lead');
    // A character reference is kept as text, a lone ampersand as it is.
    expect(escapeMarkdown('AT&T &amp;')).toBe('AT&T \\&amp;');
  });

  it('keeps text from starting a heading, quote, list or code block, and folds line breaks as a paragraph would', () => {
    expect(escapeMarkdown('# not a heading')).toBe('\\# not a heading');
    expect(escapeMarkdown('> not a quote')).toBe('\\> not a quote');
    expect(escapeMarkdown('- not a list')).toBe('\\- not a list');
    expect(escapeMarkdown('+ not a list')).toBe('\\+ not a list');
    expect(escapeMarkdown('---')).toBe('\\---');
    expect(escapeMarkdown('12. not a list')).toBe('12\\. not a list');
    expect(escapeMarkdown('-5 ms and 3.5 ms')).toBe('-5 ms and 3.5 ms');
    expect(escapeMarkdown('      indented')).toBe('indented');
    expect(escapeMarkdown('one  \ntwo\r\n\r\n  three')).toBe('one two three');
  });
});

