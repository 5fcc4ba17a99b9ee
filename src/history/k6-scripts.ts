/**
 * The rules each paystorm k6 script declares (k6/scenarios/<name>.ts): those its recorded
 * exchanges let the oracle judge on every run of it, whatever its length and random mix.
 * A declared rule no invariant could judge fails the verdict, as for paystorm's own
 * scenarios; every other rule is reported `not-exercised` with its reason. Rules that
 * depend on chance or timing (LIST-2 needs a page of two, refunds need a succeeded Direct
 * API payment, IDEM-5/6 need requests that overlap, RL-2 a window boundary, IDEM-8 and RL-9 two
 * test keys) are judged when they happen but not declared. test/k6/records.test.ts runs
 * the scripts against the reference service and checks each declared rule is judged.
 */
export const K6_SCRIPT_RULES: Readonly<Record<string, readonly string[]>> = {
  mixed: ['PAY-1', 'PAY-6', 'PAY-8', 'PAY-9', 'PAY-11', 'SM-1', 'SM-2', 'LIST-1', 'RL-4', 'RL-5', 'RL-6', 'ERR-5', 'AUTH-5', 'SEC-2'],
  soak: ['PAY-1', 'PAY-6', 'PAY-8', 'PAY-9', 'PAY-11', 'SM-1', 'SM-2', 'LIST-1', 'RL-4', 'RL-5', 'RL-6', 'ERR-5', 'AUTH-5', 'SEC-2'],
  'rate-limit': ['RL-1', 'RL-4', 'RL-5', 'RL-6', 'RL-7', 'RL-8', 'ERR-5', 'SEC-2'],
  idempotency: ['IDEM-1', 'IDEM-2', 'IDEM-3', 'IDEM-4', 'IDEM-7', 'IDEM-9', 'IDEM-10', 'REF-7', 'PAY-1', 'ERR-1', 'ERR-5', 'SEC-2'],
};
