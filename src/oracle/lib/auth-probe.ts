/** Auth probes (AUTH-1..3): a request whose Authorization header was deliberately wrong must get 401 invalid_api_key. */
import type { ExchangeRecord } from '../../history/index.ts';
import type { Invariant } from '../types.ts';
import { authVariant, errorCode, errorType } from './exchange.ts';
import { Findings, evidence, show } from './findings.ts';
import { UnservedPathHold } from './refund-paths.ts';

type AuthVariant = NonNullable<ExchangeRecord['sent']['auth']>;

export function authProbeInvariant(def: { id: string; title: string; rules: string[]; variants: AuthVariant[]; what: string }): Invariant {
  return {
    id: def.id,
    title: def.title,
    rules: def.rules,
    create(ctx) {
      const f = new Findings();
      // A router may answer a refund path the service does not serve before any authentication.
      const hold = new UnservedPathHold();
      return {
        kinds: ['exchange'],
        answers: 'auth-probes',
        onRecord(rec) {
          if (rec.kind !== 'exchange' || !def.variants.includes(authVariant(rec))) return;
          // No answer at all says nothing about authentication.
          if (rec.status === 0) return;
          f.check();
          const code = errorCode(rec);
          const type = errorType(rec);
          if (rec.status !== 401 || code !== 'invalid_api_key' || type !== 'authentication_error') {
            hold.violation(f, rec, evidence(`${def.what} (auth probe "${authVariant(rec)}"): expected 401 invalid_api_key / authentication_error, got ${rec.status} ${show(code)} / ${show(type)}`, [rec]));
          }
        },
        finish() {
          hold.release(ctx, f);
          return f.outcome(`no request was sent with ${def.what}`);
        },
      };
    },
  };
}
