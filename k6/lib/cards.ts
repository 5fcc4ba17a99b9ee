/**
 * Sandbox test cards for the k6 scripts. `src/spec/cards.ts` holds the same data but
 * imports zod (its schema), which must not end up in a k6 bundle, so the plain data is
 * repeated here; `test/k6/lib.test.ts` fails when the two drift apart.
 * Pure module: no k6 imports, so Node tests can import it.
 */
export const CARD_OUTCOMES = ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge', 'upstream_error'] as const;
export type CardOutcome = (typeof CARD_OUTCOMES)[number];
export type CardsFile = Partial<Record<CardOutcome, string>>;

/** The reference service's numbers, used when CARDS is not set. */
export const DEFAULT_TEST_CARDS: Readonly<Record<CardOutcome, string>> = {
  succeeds: '4242424242424242',
  do_not_honor: '4000000000000002',
  insufficient_funds: '4000000000009995',
  three_ds_challenge: '4000000000003220',
  upstream_error: '4000000000000119',
};

/** What each outcome should end in (SM-3, PAY-16). `code` null: the spec names none. */
export const CARD_EXPECTED: Readonly<Record<CardOutcome, { status: 'succeeded' | 'failed' | 'requires_action'; code: string | null }>> = {
  succeeds: { status: 'succeeded', code: null },
  do_not_honor: { status: 'failed', code: 'do_not_honor' },
  insufficient_funds: { status: 'failed', code: 'insufficient_funds' },
  three_ds_challenge: { status: 'requires_action', code: null },
  upstream_error: { status: 'failed', code: null },
};

/** Parses CARDS (the JSON of paystorm's `--cards` file). Unset or empty: the defaults. */
export function parseCards(raw: string | undefined): CardsFile {
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_TEST_CARDS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('CARDS: not JSON. Expected an object like {"succeeds":"4242…", "do_not_honor":"…"} (the paystorm cards file).');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('CARDS: expected a JSON object of outcome -> card number.');
  const out: CardsFile = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (!(CARD_OUTCOMES as readonly string[]).includes(k)) {
      throw new Error(`CARDS: unknown outcome "${k}"; allowed: ${CARD_OUTCOMES.join(', ')}.`);
    }
    if (typeof v !== 'string' || !/^\d{12,19}$/.test(v)) throw new Error(`CARDS: "${k}" must be a card number of 12 to 19 digits.`);
    out[k as CardOutcome] = v;
  }
  return out;
}

/** American Express takes 4-digit CVCs (TEST-2); same rule as src/spec/cards.ts cvcLength. */
export function cvcLength(num: string): 3 | 4 {
  return /^3[47]/.test(num) ? 4 : 3;
}
