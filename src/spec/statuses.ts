/**
 * Payment and refund statuses of both presentations, and the transition table
 * (spec "States and transitions"). The canonical form is presentation B's
 * lowercase names plus `processing`, which only presentation A has.
 */
export const STATUSES_A = ['SUCCEEDED', 'REQUIRES_ACTION', 'PROCESSING', 'PENDING', 'FAILED', 'EXPIRED', 'CANCELED'] as const;
export const STATUSES_B = ['pending', 'succeeded', 'failed', 'requires_action', 'expired', 'canceled'] as const;
export type StatusA = (typeof STATUSES_A)[number];
export type StatusB = (typeof STATUSES_B)[number];

export const PAYMENT_STATUSES = ['pending', 'processing', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** The list filter `status` takes exactly presentation B's set. */
export const LIST_STATUS_FILTER: readonly StatusB[] = STATUSES_B;

export const TERMINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set(['succeeded', 'failed', 'expired', 'canceled']);
export function isTerminal(s: PaymentStatus): boolean {
  return TERMINAL_STATUSES.has(s);
}

/** Statuses a create may answer with, per presentation (PAY-6). */
export const CREATE_STATUSES: Record<'A' | 'B', ReadonlySet<PaymentStatus>> = {
  A: new Set(['succeeded', 'requires_action', 'processing', 'pending', 'failed']),
  B: new Set(['pending', 'requires_action']),
};

export function statusFromWire(s: string): PaymentStatus | undefined {
  const lower = s.toLowerCase();
  return (PAYMENT_STATUSES as readonly string[]).includes(lower) ? (lower as PaymentStatus) : undefined;
}
export function statusToWire(s: PaymentStatus, presentation: 'A' | 'B'): string {
  if (presentation === 'A') return s.toUpperCase();
  // Presentation B has no `processing`; it reports such a payment as pending.
  return s === 'processing' ? 'pending' : s;
}

/**
 * Allowed moves between two observed statuses (SM-1). The spec does not show
 * moves out of PROCESSING and PENDING nor the trigger of CANCELED, so rules.md
 * allows any move from those to a terminal status and from any non-terminal
 * status to canceled. pending -> requires_action is in the table (presentation
 * B); pending <-> processing is allowed because both mean "outcome not known".
 * Staying in the same status is always allowed (polling).
 */
export const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['processing', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'],
  processing: ['pending', 'requires_action', 'succeeded', 'failed', 'expired', 'canceled'],
  requires_action: ['succeeded', 'failed', 'expired', 'canceled'],
  succeeded: [],
  failed: [],
  expired: [],
  canceled: [],
};
export function isAllowedTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];
export const REFUND_TRANSITIONS: Readonly<Record<RefundStatus, readonly RefundStatus[]>> = {
  pending: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
};
