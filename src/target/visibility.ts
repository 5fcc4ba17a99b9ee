/** Which stored payments an API key may see (retrieve and refund): its own merchant and mode only. */
import type { ApiKey } from './auth.ts';
import type { BugFlags } from './bugs.ts';
import type { PaymentRecord } from './model.ts';

export function visibleTo(key: ApiKey, p: PaymentRecord | undefined, bugs: BugFlags): p is PaymentRecord {
  if (!p) return false;
  if (bugs['sec-cross-merchant-read']) return p.mode === key.mode;
  if (bugs['auth-live-sees-test']) return p.merchant === key.merchant;
  return p.partition === key.partition;
}
