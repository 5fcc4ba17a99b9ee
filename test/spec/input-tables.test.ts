/**
 * The input tables of src/spec/inputs.ts (the one home of the create inputs' fields, what is
 * required and their limits) against the spec text, and the bad-input catalog against them.
 */
import { describe, expect, it } from 'vitest';
import { SPEC_FILE, specText, tableAfter, unquote } from './spec-text.ts';
import { describeWithShared } from '../shared-files.ts';
import {
  BAD_INPUT_CASES,
  BILLING_ADDRESS_REQUIRED,
  BILLING_DETAILS_OPTIONAL,
  BILLING_DETAILS_REQUIRED,
  CARD_FIELDS,
  CUSTOMER_B_FIELDS,
  HOSTED_CREATE_FIELDS,
  HPP_FORM_FIELDS,
  INPUT_TABLES,
  LIST_PARAMS,
  PAYMENT_METHOD_TYPE,
  returnUrlAllowed,
  type InputRequired,
  type InputRow,
  type InputShape,
} from '../../src/spec/index.ts';

const SHAPES = ['A', 'B'] as const;
const tableOf = (shape: InputShape) => tableAfter(specText(), new RegExp(`^Presentation ${shape}, used by`));
const rowsOf = (shape: InputShape) => INPUT_TABLES[shape] as Readonly<Record<string, InputRow>>;
const cellOf = (shape: InputShape, field: string) => tableOf(shape).find((r) => r[0] === field)!;
const names = (s: string) => [...s.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
const braced = (s: string) => s.split(',').map((x) => x.replace(/\(.*\)/, '').trim());

function requiredOf(cell: string): InputRequired {
  if (cell === 'yes') return 'yes';
  if (cell === 'no') return 'no';
  if (/^Direct API( only)?$/.test(cell)) return 'direct';
  if (cell === 'required when 3DS is triggered') return 'when-3ds';
  throw new Error(`unknown Required cell "${cell}"`);
}

describeWithShared([SPEC_FILE], 'input tables against card-payment-service.md', () => {
  it.each(SHAPES)('presentation %s: the same fields in the same order, with their types and Required column', (shape) => {
    const table = tableOf(shape);
    expect(Object.keys(INPUT_TABLES[shape])).toEqual(table.map((r) => r[0]));
    for (const [field, type, required] of table) {
      expect(rowsOf(shape)[field].type, field).toBe(type);
      expect(rowsOf(shape)[field].required, field).toBe(requiredOf(required));
    }
  });

  it.each(SHAPES)('presentation %s: each constraint of the Rules column, and none the column does not state', (shape) => {
    for (const [field, , , rules] of tableOf(shape)) {
      const row = rowsOf(shape)[field];
      const num = (re: RegExp) => (rules.match(re) ? Number(rules.match(re)![1]) : undefined);
      expect(row.min, field).toBe(num(/minimum (\d+)/));
      expect(row.digits, field).toBe(num(/^(\d+) digits/));
      expect(row.maxLength, field).toBe(num(/^Maximum (\d+) characters/));
      expect(row.maxKeys, field).toBe(num(/At most (\d+) keys/));
      expect(row.valueMaxLength, field).toBe(num(/Each value at most (\d+) characters/));
      expect(row.iso4217 ?? false, field).toBe(rules.includes('ISO 4217'));
      expect(row.httpsOrLocalhost ?? false, field).toBe(rules.includes('Must use https, or http://localhost'));
      expect(row.subFieldsRequired ?? false, field).toBe(rules.includes('All sub-fields required'));
    }
  });

  it("presentation A's payment_method_data and billing_details", () => {
    const pmd = cellOf('A', 'payment_method_data')[3];
    expect(pmd.match(/`type` = `([a-z_]+)`/)![1]).toBe(PAYMENT_METHOD_TYPE);
    expect(braced(pmd.match(/`card` = \{([^}]*)\}/)![1])).toEqual([...CARD_FIELDS]);
    const billing = cellOf('A', 'billing_details')[3];
    expect(names(billing.split(' are the minimum')[0])).toEqual([...BILLING_DETAILS_REQUIRED]);
    expect(braced(billing.match(/`address` \{([^}]*)\}/)![1])).toEqual([...BILLING_ADDRESS_REQUIRED]);
    expect(names(billing.split('Optional ')[1].split('.')[0])).toEqual([...BILLING_DETAILS_OPTIONAL]);
  });

  it("presentation B's card and customer", () => {
    expect(names(cellOf('B', 'card')[3])).toEqual([...CARD_FIELDS]);
    expect(names(cellOf('B', 'customer')[3])).toEqual([...CUSTOMER_B_FIELDS]);
  });

  it('the hosted create body: its fields in order, which are optional, and A rows for each', () => {
    const line = specText().split('\n').find((l) => l.startsWith('- Body: `amount`'))!;
    const body = line.slice('- Body: '.length).split('. No card data')[0];
    const parts = body.split(', ');
    expect(Object.keys(HOSTED_CREATE_FIELDS)).toEqual(parts.map((p) => names(p)[0]));
    for (const p of parts) {
      const field = names(p)[0] as keyof typeof HOSTED_CREATE_FIELDS;
      if (p.startsWith('optional ')) expect(HOSTED_CREATE_FIELDS[field].required, field).toBe('no');
      if (p.includes('(required)')) expect(HOSTED_CREATE_FIELDS[field].required, field).toBe('yes');
      expect(HOSTED_CREATE_FIELDS[field]).toBe(rowsOf('A')[field]);
    }
    expect(HPP_FORM_FIELDS).toEqual(CARD_FIELDS);
  });

  it('return_url: https anywhere, plain http only on localhost', () => {
    expect(unquote(cellOf('B', 'return_url')[3])).toContain('Must use https, or http://localhost');
    expect(returnUrlAllowed(new URL('https://example.com/r'))).toBe(true);
    expect(returnUrlAllowed(new URL('http://localhost:3000/r'))).toBe(true);
    expect(returnUrlAllowed(new URL('http://example.com/r'))).toBe(false);
    expect(returnUrlAllowed(new URL('ftp://localhost/r'))).toBe(false);
  });
});

describe('the bad-input catalog follows the input tables', () => {
  const byName = new Map(BAD_INPUT_CASES.map((c) => [c.case, c]));
  const kebab = (s: string) => s.replace(/_/g, '-');
  const expectation = (name: string) => {
    const c = byName.get(name);
    if (!c) throw new Error(`no bad-input case ${name}`);
    return c.expectation;
  };

  it.each(SHAPES)('presentation %s: a missing required field is a demanded 400, for every required row', (shape) => {
    for (const [field, row] of Object.entries(rowsOf(shape))) {
      if (row.required === 'yes' || row.required === 'direct') expect(expectation(`create/${shape}/${kebab(field)}-missing`), field).toBe('demanded');
    }
    // Required only when 3DS is triggered: the issuer decides after the create, so no rule demands it there.
    if (rowsOf(shape).return_url.required === 'when-3ds') expect(expectation(`create/${shape}/return-url-missing-with-3ds-card`)).toBe('lenient-ok');
  });

  it.each(SHAPES)('presentation %s: a missing card sub-field is demanded exactly where the table states the sub-fields required', (shape) => {
    const row = shape === 'A' ? rowsOf('A').payment_method_data : rowsOf('B').card;
    for (const f of CARD_FIELDS) expect(expectation(`create/${shape}/card-${f}-missing`), f).toBe(row.subFieldsRequired ? 'demanded' : 'lenient-ok');
  });

  it('the sub-fields of billing_details (A) and customer (B) each have a demanded missing case', () => {
    for (const f of BILLING_DETAILS_REQUIRED) expect(expectation(`create/A/billing-${f === 'email' ? 'email' : 'address'}-missing`)).toBe('demanded');
    for (const f of BILLING_ADDRESS_REQUIRED) expect(expectation(`create/A/billing-address-${f}-missing`)).toBe('demanded');
    for (const f of CUSTOMER_B_FIELDS) expect(expectation(`create/B/customer-${f}-missing`)).toBe('demanded');
  });

  it.each(SHAPES)("presentation %s: a constraint its own table does not state is lenient, one it states is demanded", (shape) => {
    const rows = rowsOf(shape);
    const want = (stated: boolean | undefined) => (stated ? 'demanded' : 'lenient-ok');
    expect(expectation(`create/${shape}/metadata-51-keys`)).toBe(want(rows.metadata !== undefined));
    expect(expectation(`create/${shape}/merchant-reference-9-digits`)).toBe(want(rows.merchant_reference !== undefined));
    expect(expectation(`create/${shape}/return-url-plain-http`)).toBe(want(rows.return_url.httpsOrLocalhost));
    expect(expectation(`create/${shape}/currency-not-iso`)).toBe(want(rows.currency.iso4217));
  });
});

describeWithShared([SPEC_FILE], 'list parameters against card-payment-service.md', () => {
  const rows = tableAfter(specText(), /^- Query parameters:/);

  it('the same parameters in order, with their types', () => {
    expect(Object.keys(LIST_PARAMS)).toEqual(rows.map((r) => r[0]));
    for (const [name, type] of rows) expect(LIST_PARAMS[name as keyof typeof LIST_PARAMS].type, name).toBe(type);
  });

  it('limit bounds and default, and the status values', () => {
    const get = (name: string) => rows.find((r) => r[0] === name)![2];
    const { min, max, default: dflt } = LIST_PARAMS.limit;
    expect(get('limit')).toBe(`${min} to ${max}, default ${dflt}`);
    expect(names(get('status'))).toEqual([...LIST_PARAMS.status.values]);
  });

  it('the bad-input list cases probe just outside the limit bounds', () => {
    const { min, max } = LIST_PARAMS.limit;
    const limits = BAD_INPUT_CASES.filter((c) => c.op === 'list' && c.rules.includes('LIST-3')).map((c) => (c.mutate({}) as Record<string, string>).limit);
    expect(limits).toEqual(expect.arrayContaining([String(min - 1), String(max + 1)]));
  });
});
