/**
 * Sandbox test cards (spec "Test mode rules"). The spec omits the digits, so the
 * cards file (`--cards FILE`) maps each outcome to a number; a missing entry means
 * that outcome is not exercised. The reference service's defaults are below.
 * Plain data, no zod: the k6 scripts bundle this module (src/cli/cards-file.ts validates the file).
 */
export const CARD_OUTCOMES = ['succeeds', 'do_not_honor', 'insufficient_funds', 'three_ds_challenge', 'upstream_error'] as const;
export type CardOutcome = (typeof CARD_OUTCOMES)[number];

/** The cards file: outcome -> card number. */
export type CardsFile = Partial<Record<CardOutcome, string>>;

/** A card number: 12 to 19 digits (ISO/IEC 7812 PAN lengths; the spec states none). */
export const CARD_NUMBER_PATTERN = /^\d{12,19}$/;
export const CARD_NUMBER_DESCRIPTION = 'a card number of 12 to 19 digits';

/**
 * The description of the payment paystorm's presentation probe creates before a run's first
 * request (src/client/detect.ts): after the run's clock started, and in no history. The oracle
 * knows it by this in lists (FT-3 counts the payments only lists show).
 */
export const PRESENTATION_PROBE_DESCRIPTION = 'paystorm presentation probe';

/** Luhn-valid numbers the reference service uses unless --cards replaces them. */
export const DEFAULT_TEST_CARDS: Required<CardsFile> = {
  succeeds: '4242424242424242',
  do_not_honor: '4000000000000002',
  insufficient_funds: '4000000000009995',
  three_ds_challenge: '4000000000003220',
  upstream_error: '4000000000000119',
};

/** What each outcome should end in (SM-3, PAY-16). */
export const CARD_EXPECTED: Readonly<Record<CardOutcome, { status: 'succeeded' | 'failed' | 'requires_action'; code: string | null }>> = {
  succeeds: { status: 'succeeded', code: null },
  do_not_honor: { status: 'failed', code: 'do_not_honor' },
  insufficient_funds: { status: 'failed', code: 'insufficient_funds' },
  three_ds_challenge: { status: 'requires_action', code: null },
  // The reference service ends these failed with generic_decline after retrying; the spec does not name it.
  upstream_error: { status: 'failed', code: null },
};

/** Outcomes of a cards file given a number already given for another one: [outcome, the first outcome]. One number cannot stand for two outcomes. */
export function sharedCardNumbers(cards: Readonly<Partial<Record<string, unknown>>>): [string, string][] {
  const first = new Map<unknown, string>();
  const out: [string, string][] = [];
  for (const [outcome, number] of Object.entries(cards)) {
    if (typeof number !== 'string') continue;
    const seen = first.get(number);
    if (seen) out.push([outcome, seen]);
    else first.set(number, outcome);
  }
  return out;
}

export function luhnValid(num: string): boolean {
  let sum = 0;
  let dbl = false;
  for (let i = num.length - 1; i >= 0; i--) {
    let d = num.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (dbl) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 === 0;
}

/** Brand by leading digits; American Express takes 4-digit CVCs (TEST-2). */
export function cardBrand(num: string): 'visa' | 'mastercard' | 'amex' | 'discover' | 'unknown' {
  if (/^3[47]/.test(num)) return 'amex';
  if (/^4/.test(num)) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(num)) return 'mastercard';
  if (/^6(011|5)/.test(num)) return 'discover';
  return 'unknown';
}
export function cvcLength(num: string): 3 | 4 {
  return cardBrand(num) === 'amex' ? 4 : 3;
}
