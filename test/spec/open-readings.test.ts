/**
 * The open readings (src/spec/open-readings.ts) pinned to the spec text: each quotes words that
 * stand verbatim in the section it names, the two contradictions a bad-input case relies on are
 * still in the text, the catalog's cases cite them, and docs/open-readings.md lists every reading.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SPEC_FILE, specText, tableAfter } from './spec-text.ts';
import { describeWithShared } from '../shared-files.ts';
import { BAD_INPUT_CASES, HOSTED_CREATE_FIELDS, INPUT_TABLES, OPEN_READINGS, OPEN_READING_LIST, SHAPE_CARD_FIELD, SHAPE_CUSTOMER_FIELD, openReading } from '../../src/spec/index.ts';

const DOC = readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/open-readings.md'), 'utf8');
const caseNamed = (name: string) => {
  const c = BAD_INPUT_CASES.find((x) => x.case === name);
  if (!c) throw new Error(`no bad-input case ${name}`);
  return c;
};

/**
 * The text of a section named `Heading > Subheading`: from the last heading's line to the next
 * heading of the same or a higher level. A note `(presentation X)` after the last name narrows it
 * to that presentation's input table (from its "Presentation X, used by" line to the table's end).
 */
function sectionText(path: string): string {
  const lines = specText().split('\n');
  let from = 0;
  let level = 0;
  const names = path.split(' > ');
  for (const name of names.map((n) => n.replace(/\s*\(.*\)$/, ''))) {
    const i = lines.findIndex((l, j) => j >= from && /^#{2,4} /.test(l) && l.replace(/^#+ /, '') === name);
    if (i < 0) throw new Error(`no heading "${name}" (of "${path}") in the spec`);
    from = i;
    level = lines[i].indexOf(' ');
  }
  const end = lines.findIndex((l, j) => j > from && /^#+ /.test(l) && l.indexOf(' ') <= level);
  const section = lines.slice(from, end < 0 ? undefined : end);
  const shape = /\(presentation ([AB])\)$/.exec(names[names.length - 1])?.[1];
  if (!shape) return section.join('\n');
  const start = section.findIndex((l) => l.startsWith(`Presentation ${shape}, used by`));
  if (start < 0) throw new Error(`no presentation ${shape} table in "${path}"`);
  const tableEnd = section.findIndex((l, j) => j > start + 2 && !l.startsWith('|'));
  return section.slice(start, tableEnd < 0 ? undefined : tableEnd).join('\n');
}

describeWithShared([SPEC_FILE], 'open readings against card-payment-service.md', () => {
  it('ids are unique, and each reading quotes words that stand verbatim in the section it names', () => {
    expect(new Set(OPEN_READING_LIST.map((r) => r.id)).size).toBe(OPEN_READING_LIST.length);
    for (const r of OPEN_READING_LIST) {
      expect(r.words.length, r.id).toBeGreaterThan(0);
      for (const w of r.words) expect(sectionText(w.section), `${r.id}: ${w.section}`).toContain(w.words);
      if (r.kind === 'contradiction') expect(new Set(r.words.map((w) => w.section)).size, r.id).toBeGreaterThan(1);
    }
  });

  it('a section that is not there, or words not in it, are caught (the pin can fail)', () => {
    expect(() => sectionText('Endpoints > No such endpoint')).toThrow(/no heading/);
    expect(sectionText('Endpoints > Create a Direct API payment')).not.toContain('optional `merchant_reference`');
    // Each presentation's table only: B's return_url row is not in A's.
    const inputs = 'Resources and their fields > Input objects for payment creation';
    expect(sectionText(`${inputs} (presentation A)`)).toContain('| return_url | string | yes |');
    expect(sectionText(`${inputs} (presentation A)`)).not.toContain('required when 3DS is triggered');
    expect(sectionText(`${inputs} (presentation B)`)).not.toContain('| return_url | string | yes |');
  });

  it("hosted return_url: the endpoint's body line does not mark it required, while A's input table does", () => {
    const line = sectionText('Endpoints > Create a hosted payment page payment')
      .split('\n')
      .find((l) => l.startsWith('- Body: '))!;
    const parts = line.slice('- Body: '.length).split('. No card data')[0].split(', ');
    const i = parts.findIndex((p) => p.includes('`return_url`'));
    // Its own item carries no mark, it follows an item marked optional, and the line does mark a required one.
    expect(parts[i]).toBe('`return_url`');
    expect(parts[i - 1]).toMatch(/^optional `/);
    expect(parts.some((p) => p.endsWith('(required)'))).toBe(true);
    const tableA = tableAfter(specText(), /^Presentation A, used by/);
    expect(tableA.find((r) => r[0] === 'return_url')![2]).toBe('yes');
    expect(INPUT_TABLES.A.return_url.required).toBe('yes');
    expect(HOSTED_CREATE_FIELDS.return_url).toBe(INPUT_TABLES.A.return_url);
    // So the hosted case takes either answer, while the Direct API's A case (A's table alone) stays demanded.
    expect(caseNamed('create_hpp/A/return-url-missing')).toMatchObject({ expectation: 'either', reading: OPEN_READINGS.hostedReturnUrl.id });
    expect(caseNamed('create/A/return-url-missing').expectation).toBe('demanded');
  });

  it("dual shapes: the Direct API's body is both input tables, each with its own card and customer field", () => {
    expect(sectionText('Endpoints > Create a Direct API payment')).toContain('- Body: see the input tables in Resources and their fields.');
    const tables = { A: tableAfter(specText(), /^Presentation A, used by/), B: tableAfter(specText(), /^Presentation B, used by/) };
    const row = (shape: 'A' | 'B', field: string) => tables[shape].find((r) => r[0] === field);
    // A's card is inside payment_method_data, B's is `card`; neither table has the other's field.
    expect(row('A', SHAPE_CARD_FIELD.A)![3]).toContain('`card` = {');
    expect(row('B', SHAPE_CARD_FIELD.B)![3]).toContain('`number`');
    expect(row('A', SHAPE_CARD_FIELD.B)).toBeUndefined();
    expect(row('B', SHAPE_CARD_FIELD.A)).toBeUndefined();
    expect(row('A', SHAPE_CUSTOMER_FIELD.A)![3]).toContain('`email`');
    expect(row('B', SHAPE_CUSTOMER_FIELD.B)![3]).toContain('`email`');
    expect(row('A', SHAPE_CUSTOMER_FIELD.B)).toBeUndefined();
    expect(row('B', SHAPE_CUSTOMER_FIELD.A)).toBeUndefined();
    // Both are required on the Direct API in their own table: the refusal stays demanded, only the name is open.
    for (const [shape, field] of [['A', SHAPE_CARD_FIELD.A], ['B', SHAPE_CARD_FIELD.B], ['A', SHAPE_CUSTOMER_FIELD.A], ['B', SHAPE_CUSTOMER_FIELD.B]] as const) expect(row(shape, field)![2], field).not.toBe('no');
    const cases = [
      ['create/A/payment-method-data-missing', OPEN_READINGS.dualShapeCard, SHAPE_CARD_FIELD.B],
      ['create/B/card-missing', OPEN_READINGS.dualShapeCard, SHAPE_CARD_FIELD.A],
      ['create/A/billing-details-missing', OPEN_READINGS.dualShapeCustomer, SHAPE_CUSTOMER_FIELD.B],
      ['create/B/customer-missing', OPEN_READINGS.dualShapeCustomer, SHAPE_CUSTOMER_FIELD.A],
    ] as const;
    for (const [name, reading, other] of cases) expect(caseNamed(name), name).toMatchObject({ expectation: 'demanded', reading: reading.id, altParams: [other] });
  });

  it('every case citing a reading cites a known one, and every reading is cited', () => {
    const cited = new Set<string>();
    for (const c of BAD_INPUT_CASES) {
      if (!c.reading) continue;
      expect(openReading(c.reading), c.case).toBeDefined();
      cited.add(c.reading);
    }
    expect([...cited].sort()).toEqual(OPEN_READING_LIST.map((r) => r.id).sort());
  });
});

describe('docs/open-readings.md', () => {
  it('has a row for every reading, naming every case that takes either answer or other params', () => {
    for (const r of OPEN_READING_LIST) expect(DOC, r.id).toContain(`| \`${r.id}\` |`);
    for (const c of BAD_INPUT_CASES.filter((x) => x.expectation === 'either' || x.altParams)) expect(DOC, c.case).toContain(`\`${c.case}\``);
  });
});
