/** In-memory records of the reference service. Rendering to either presentation is in present.ts. */
import type { Mode, PaymentStatus, RefundStatus } from '../spec/index.ts';

export interface MaskedCard {
  brand: string | null;
  last4: string;
  exp_month: number;
  exp_year: number;
  country: string | null;
}

/** Full card data, kept only while the processor may still need it; never rendered. */
export interface CardSecret {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
  holder_name: string;
}

export interface RefundRecord {
  id: string;
  paymentId: string;
  amount: number;
  status: RefundStatus;
  created: number;
  /** Upstream attempts so far (retries after an unreachable processor). */
  attempts: number;
  firstAttemptMs: number;
}

export interface PaymentRecord {
  id: string;
  /** Global creation order: breaks ties between payments created in the same second. */
  seq: number;
  merchant: string;
  mode: Mode;
  partition: string;
  hosted: boolean;
  status: PaymentStatus;
  amount: number;
  /** Uppercase ISO 4217. */
  currency: string;
  /** Unix seconds. */
  created: number;
  createdMs: number;
  description: string | null;
  metadata: Record<string, string>;
  merchantReference: number | null;
  returnUrl: string | null;
  customer: { email: string | null; name: string | null };
  card: MaskedCard | null;
  cardSecret: CardSecret | null;
  nextAction: { reason: 'three_d_secure' | 'hosted_payment_page'; redirectUrl: string } | null;
  /** Presentation B `redirect_url`: the hosted page, kept after completion. */
  hostedPageUrl: string | null;
  failureCode: string | null;
  declineMessage: string | null;
  providerReference: string | null;
  succeededAt: number | null;
  failedAt: number | null;
  refundedAt: number | null;
  refunds: RefundRecord[];
  /** Sum of succeeded refunds. */
  refundedAmount: number;
  /** Sum of pending and succeeded refunds: what can no longer be refunded. */
  reservedAmount: number;
  /** Position in its partition's list (creation order). */
  listIndex: number;
  /** Bumped on every change; the rendered JSON is cached per version. */
  version: number;
  cachedJson: string | null;
  cachedVersion: number;
  /** Processor bookkeeping. */
  processorErrors: number;
  upstreamAttempts: number;
  firstAttemptMs: number;
  waitingOnUpstream: boolean;
  threeDsPassed: boolean;
  cancelExpiry: (() => void) | null;
  deleted: boolean;
}

export function touch(p: PaymentRecord): void {
  p.version++;
  p.cachedJson = null;
}
