import { expect, it } from 'vitest';
import { RULES_FILE, SPEC_FILE, specText, rulesText, tableAfter, unquote } from './spec-text.ts';
import { describeWithShared } from '../shared-files.ts';
import {
  RULES,
  RULE_IDS,
  ERROR_CODES,
  ERROR_TYPES,
  DECLINE_CODES,
  EVENT_TYPES,
  STATUSES_A,
  STATUSES_B,
  LIMITS,
  KNOWN_KEY_PREFIXES,
  LIST_STATUS_FILTER,
  CREATE_STATUSES,
  isAllowedTransition,
  statusFromWire,
} from '../../src/spec/index.ts';

describeWithShared([RULES_FILE], 'src/spec against rules.md', () => {
  const text = rulesText();
  const idsInText = [...text.matchAll(/^- ([A-Z]+-\d+):/gm)].map((m) => m[1]);

  it('lists exactly the rule ids of the catalog', () => {
    expect(idsInText.length).toBeGreaterThan(80);
    expect([...RULE_IDS].sort()).toEqual([...idsInText].sort());
  });

  it('marks observe / implied / not testable rules as the catalog does', () => {
    for (const m of text.matchAll(/^- ([A-Z]+-\d+): (\((?:observe|implied|not testable)[^)]*\))?/gm)) {
      const info = RULES.find((r) => r.id === m[1])!;
      const marker = m[2] ?? '';
      // FT and SEC families are implied by their heading.
      const familyImplied = /^(FT|SEC)-/.test(info.id);
      const expected = marker.startsWith('(observe')
        ? 'observe'
        : marker.startsWith('(not testable')
          ? 'not-testable'
          : marker.startsWith('(implied') || familyImplied
            ? 'implied'
            : 'testable';
      expect(info.kind, info.id).toBe(expected);
    }
  });
});

describeWithShared([SPEC_FILE], 'src/spec against card-payment-service.md', () => {
  const text = specText();

  it('error-code table: every code, type and HTTP status', () => {
    const rows = tableAfter(text, /^### Error codes/);
    const fromText = Object.fromEntries(rows.map((r) => [unquote(r[0]), { type: unquote(r[1]), http: Number(r[2]) }]));
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(fromText).sort());
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(info.type, code).toBe(fromText[code].type);
      expect(info.http, code).toBe(fromText[code].http);
    }
  });

  it('error types', () => {
    const line = text.split('\n').find((l) => l.startsWith('`api_error`'))!;
    const types = [...line.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect([...ERROR_TYPES].sort()).toEqual(types.sort());
  });

  it('decline codes', () => {
    const rows = tableAfter(text, /^### Decline and failure codes/);
    expect([...DECLINE_CODES].sort()).toEqual(rows.map((r) => unquote(r[0])).sort());
  });

  it('event types', () => {
    const rows = tableAfter(text, /^### Event types/);
    expect([...EVENT_TYPES].sort()).toEqual(rows.map((r) => unquote(r[0])).sort());
  });

  it('statuses of both presentations and the list filter', () => {
    const a = text.split('\n').find((l) => l.startsWith('- Presentation A: `SUCCEEDED`'))!;
    const b = text.split('\n').find((l) => l.startsWith('- Presentation B: `pending`'))!;
    expect([...STATUSES_A].sort()).toEqual([...a.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1]).sort());
    expect([...STATUSES_B].sort()).toEqual([...b.split('. This is also')[0].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort());
    const listRows = tableAfter(text, /^### List payments/);
    const statusRow = listRows.find((r) => r[0] === 'status')!;
    expect([...LIST_STATUS_FILTER].sort()).toEqual([...statusRow[2].matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).sort());
  });

  it('create statuses per presentation follow the endpoint description', () => {
    const line = text.split('\n').find((l) => l.includes('Presentation A allows an immediate'))!;
    const allowedA = line.match(/immediate ([A-Z_, or]+)\./)![1].split(/, | or /).map((s) => statusFromWire(s.trim())!);
    expect([...CREATE_STATUSES.A].sort()).toEqual(allowedA.sort());
    expect([...CREATE_STATUSES.B].sort()).toEqual(['pending', 'requires_action']);
  });

  it('every transition in the table is allowed, and terminal statuses never move', () => {
    const rows = tableAfter(text, /^## States and transitions/);
    for (const [from, , , to] of rows) {
      if (from === '(none)') continue;
      const froms = from.split('/').map((s) => statusFromWire(s.replace(/\(HPP\)/, '').trim()));
      for (const toPart of to.split(/ or |\//)) {
        const t = statusFromWire(toPart.trim());
        if (toPart.trim() === 'unchanged') continue;
        for (const f of froms) expect(isAllowedTransition(f!, t!), `${from} -> ${to}`).toBe(true);
      }
    }
    for (const t of ['succeeded', 'failed', 'expired', 'canceled'] as const) {
      expect(isAllowedTransition(t, 'pending')).toBe(false);
      expect(isAllowedTransition('succeeded', t)).toBe(t === 'succeeded');
    }
    expect(isAllowedTransition('requires_action', 'pending')).toBe(false);
  });

  it('limits', () => {
    const rows = tableAfter(text, /^## Limits/);
    const get = (name: string) => rows.find((r) => r[0] === name)![1];
    expect(get('Request rate')).toContain(`${LIMITS.rateLimitPerWindow} requests per minute`);
    expect(get('Rate window')).toContain(`Fixed ${LIMITS.rateWindowMs / 1000}-second window`);
    expect(get('Idempotency key length')).toContain(`${LIMITS.idempotencyKeyMaxLength} characters`);
    expect(get('Idempotency key lifetime')).toContain('24 hours');
    expect(get('Page size')).toBe(`\`limit\` ${LIMITS.pageLimitMin} to ${LIMITS.pageLimitMax}, default ${LIMITS.pageLimitDefault}`);
    expect(get('Amount')).toContain(`at least ${LIMITS.amountMin}`);
    expect(get('description')).toContain(`${LIMITS.descriptionMaxLength} characters`);
    expect(get('metadata')).toContain(`${LIMITS.metadataMaxKeys} keys, values at most ${LIMITS.metadataValueMaxLength}`);
    expect(get('metadata')).toContain(`within ${LIMITS.metadataKeyRecommendedLength}`);
    expect(get('Webhook acknowledge time')).toBe(`${LIMITS.webhookAckTimeoutMs / 1000} seconds`);
    expect(get('Webhook timestamp tolerance')).toBe(`${LIMITS.webhookToleranceSeconds / 60} minutes`);
    expect(text).toContain(`range ${LIMITS.merchantReferenceMin} to ${LIMITS.merchantReferenceMax}`);
  });

  it('key prefixes', () => {
    const rows = tableAfter(text, /^3\. The key decides the mode/);
    const fromText: Record<string, string> = {};
    for (const r of rows) {
      const mode = r[0].startsWith('Test') ? 'test' : 'live';
      for (const cell of [r[1], r[2]]) {
        const m = cell.match(/`([a-z]+_[a-z]+_sk_)`/);
        if (m) fromText[m[1]] = mode;
      }
    }
    expect(KNOWN_KEY_PREFIXES).toEqual(fromText);
  });
});
