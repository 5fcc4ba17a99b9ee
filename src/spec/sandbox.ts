/**
 * Sandbox driver protocol. The spec leaves how a harness completes a 3DS challenge
 * or a hosted page open; the reference service implements this, and paystorm's
 * driver (replaceable for other sandboxes) speaks it:
 * - 3DS: `GET <redirect_url>` with `result=success` or `result=fail` added to its
 *   query completes the challenge and answers 303 to `return_url`.
 * - Hosted page: `POST <redirect_url>` with a form-encoded body of the fields below
 *   answers 303 (to `return_url`, or to the 3DS challenge when the card needs it).
 */
import { CARD_FIELDS } from './inputs.ts';

export const THREE_DS_RESULT_PARAM = 'result';
export const THREE_DS_RESULTS = ['success', 'fail'] as const;
export type ThreeDsResult = (typeof THREE_DS_RESULTS)[number];
/** The hosted page's form takes the card of the input tables. */
export const HPP_FORM_FIELDS = CARD_FIELDS;
