/** Reads the contract's text (../shared/spec from the project root) for tests that check src/spec against it. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve, dirname } from 'node:path';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SPEC_PATH = resolve(root, '../shared/spec/card-payment-service.md');
export const RULES_PATH = resolve(root, '../shared/spec/rules.md');
export const specText = () => readFileSync(SPEC_PATH, 'utf8');
export const rulesText = () => readFileSync(RULES_PATH, 'utf8');

/** The rows of the markdown table that follows a heading line matching `heading`. */
export function tableAfter(text: string, heading: RegExp): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => heading.test(l));
  if (start < 0) throw new Error(`heading ${heading} not found in the spec`);
  const rows: string[][] = [];
  let inTable = false;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i].trim();
    if (l.startsWith('|')) {
      inTable = true;
      const cells = l.slice(1, -1).split('|').map((c) => c.trim());
      if (cells.every((c) => /^-+$/.test(c))) continue;
      rows.push(cells);
    } else if (inTable) break;
  }
  return rows.slice(1); // drop the header row
}
export const unquote = (s: string) => s.replace(/`/g, '').trim();
