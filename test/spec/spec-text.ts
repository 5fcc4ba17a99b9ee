/** Reads the contract's text (spec/ of the shared folder, test/shared-files.ts) for tests that check src/spec against it. */
import { readFileSync } from 'node:fs';
import { sharedPath } from '../shared-files.ts';

/** The files, as paths in the shared folder (for describeWithShared). */
export const SPEC_FILE = 'spec/card-payment-service.md';
export const RULES_FILE = 'spec/rules.md';
const texts = new Map<string, string>();
const read = (file: string) => texts.get(file) ?? texts.set(file, readFileSync(sharedPath(file), 'utf8')).get(file)!;
export const specText = () => read(SPEC_FILE);
export const rulesText = () => read(RULES_FILE);

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
