/**
 * `paystorm doctor`: checks the wiring before a long run. Each check says what it
 * found and, when it fails, the fix. Exit: 0 all ok, 3 a key or option is wrong,
 * 4 the target (or Toxiproxy) is unreachable or not this API.
 */
import { WIRE_HEADER_OBJECT } from '../client/wire.ts';
import { request } from 'undici';
import { API_PATHS, EXIT, LIMITS, SIGNATURE_HEADER, SIGNATURE_HEADER_SUFFIX, signPayload, type CardsFile, type ParsedKey } from '../spec/index.ts';
import { type WebhookRecord } from '../history/index.ts';
import { probeRateLimit, detectTargetPresentation } from '../client/index.ts';
import { startWebhookReceiver } from '../webhooks/index.ts';

export interface DoctorCheck {
  name: string;
  ok: boolean;
  detail: string;
  /** Exit code this failure maps to. */
  exitCode?: number;
}

export interface DoctorOptions {
  targetUrl: string;
  keys: readonly ParsedKey[];
  cards: CardsFile;
  toxiproxyUrl?: string;
  /** `secret`: one signing secret or one per endpoint; `signatureHeader`: the service's own header name, if given. */
  webhook?: { port: number; secret: string | readonly string[]; signatureHeader?: string; host: string; roundTripTimeoutMs: number };
}

async function checkKey(targetUrl: string, k: ParsedKey): Promise<DoctorCheck> {
  const name = `key ${k.label}`;
  try {
    const p = await probeRateLimit(targetUrl, k.secret, 10_000);
    if (p.status === 401) return { name, ok: false, detail: 'refused with 401: pass a valid, unrevoked key', exitCode: EXIT.usage };
    if (p.status === 429) return { name, ok: true, detail: `accepted (${k.mode} mode), currently rate limited (429)` };
    if (p.status !== 200) return { name, ok: false, detail: `GET /v1/payments answered ${p.status}`, exitCode: EXIT.target };
    return { name, ok: true, detail: `accepted, ${k.mode} mode, limit ${p.limit ?? '?'} per window, ${p.remaining ?? '?'} remaining` };
  } catch (e) {
    return { name, ok: false, detail: (e as Error).message, exitCode: EXIT.target };
  }
}

/** Livemode of a list page's payments must match the key's mode (a test key that sees live data stops any run). */
async function checkMode(targetUrl: string, k: ParsedKey): Promise<DoctorCheck | null> {
  const res = await request(targetUrl.replace(/\/+$/, '') + `${API_PATHS.payments}?limit=5`, { headers: { ...WIRE_HEADER_OBJECT, authorization: `Bearer ${k.secret}` } });
  const body = (await res.body.json().catch(() => null)) as { data?: { livemode?: unknown }[] } | null;
  const wrong = (body?.data ?? []).filter((p) => typeof p.livemode === 'boolean' && p.livemode !== (k.mode === 'live'));
  if (!body?.data?.length) return null;
  return wrong.length
    ? { name: `mode of ${k.label}`, ok: false, detail: `${wrong.length} payment(s) listed with livemode ${k.mode === 'test'}: the key's mode and its data disagree`, exitCode: EXIT.target }
    : { name: `mode of ${k.label}`, ok: true, detail: `listed payments carry livemode ${k.mode === 'live'}` };
}

export async function runDoctor(o: DoctorOptions): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const test = o.keys.find((k) => k.mode === 'test') ?? o.keys[0];
  // 1. Reachable, and this API?
  try {
    const p = await probeRateLimit(o.targetUrl, test.secret, 10_000);
    if (p.limit === null && p.status !== 401) {
      checks.push({ name: 'target', ok: false, detail: `${o.targetUrl} answered GET /v1/payments with ${p.status} and no X-RateLimit-Limit: not the Card Payment Service API?`, exitCode: EXIT.target });
    } else {
      checks.push({ name: 'target', ok: true, detail: `${o.targetUrl} speaks the API (X-RateLimit-Limit ${p.limit ?? 'absent on 401'})` });
    }
  } catch (e) {
    checks.push({ name: 'target', ok: false, detail: `${o.targetUrl} is unreachable: ${(e as Error).message}. Check --target.`, exitCode: EXIT.target });
    return checks;
  }
  // 2. Keys and their modes.
  for (const k of o.keys) {
    const c = await checkKey(o.targetUrl, k);
    checks.push(c);
    if (c.ok) {
      const m = await checkMode(o.targetUrl, k).catch(() => null);
      if (m) checks.push(m);
    }
  }
  const pres = await detectTargetPresentation(o.targetUrl, test.secret).catch(() => null);
  checks.push({ name: 'presentation', ok: true, detail: pres ? `presentation ${pres}` : 'not known yet (no payment listed); a run detects it from its first create' });
  // 3. Toxiproxy.
  if (o.toxiproxyUrl) {
    try {
      const res = await request(o.toxiproxyUrl.replace(/\/+$/, '') + '/version');
      const text = await res.body.text();
      const proxies = await request(o.toxiproxyUrl.replace(/\/+$/, '') + '/proxies');
      const list = (await proxies.body.json()) as Record<string, unknown>;
      checks.push({ name: 'toxiproxy', ok: res.statusCode === 200, detail: `${o.toxiproxyUrl}: version ${text.trim()}, proxies: ${Object.keys(list).join(', ') || 'none'}`, exitCode: EXIT.target });
    } catch (e) {
      checks.push({ name: 'toxiproxy', ok: false, detail: `${o.toxiproxyUrl} is unreachable: ${(e as Error).message}. Check --toxiproxy.`, exitCode: EXIT.target });
    }
  }
  // 4. Webhooks: the receiver verifies a delivery signed with the secret, then (with a success card) a real one from the target.
  if (o.webhook) {
    const records: WebhookRecord[] = [];
    const secrets = typeof o.webhook.secret === 'string' ? [o.webhook.secret] : [...o.webhook.secret];
    const headerName = o.webhook.signatureHeader ?? SIGNATURE_HEADER;
    const receiver = await startWebhookReceiver({
      host: o.webhook.host,
      port: o.webhook.port,
      secret: secrets,
      ...(o.webhook.signatureHeader !== undefined ? { signatureHeader: o.webhook.signatureHeader } : {}),
      seed: 1,
      now: () => performance.now(),
      sink: (r) => records.push(r),
    });
    /** Which header and (with several) which secret verified a delivery, as the record says. */
    const how = (r: WebhookRecord | undefined) =>
      `${r?.signatureHeader ? ` from header ${r.signatureHeader}` : ''}${secrets.length > 1 && r?.secretIndex !== undefined ? ` with --webhook-secret #${r.secretIndex + 1}` : ''}`;
    try {
      const body = JSON.stringify({ id: 'evt_doctor', type: 'payment.succeeded', created_at: Math.floor(Date.now() / 1000), livemode: false, data: { payment: { id: 'pay_doctor', status: 'succeeded' } } });
      const self = await request(`http://127.0.0.1:${receiver.port}/doctor`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [headerName]: signPayload(secrets[0], body, Math.floor(Date.now() / 1000)) },
        body,
      });
      await self.body.dump();
      const selfOk = records.at(-1)?.signature === 'ok';
      const secretsText = secrets.length > 1 ? `any of the ${secrets.length} given secrets` : 'the given secret';
      const headerText = o.webhook.signatureHeader !== undefined ? `header ${o.webhook.signatureHeader}` : `header ${SIGNATURE_HEADER} or any ...${SIGNATURE_HEADER_SUFFIX} header of the form t=...,v1=...`;
      checks.push({ name: 'webhook receiver', ok: selfOk, detail: selfOk ? `listening on port ${receiver.port}, verifies signatures (${headerText}) with ${secretsText}` : `a delivery signed with the given secret was answered ${self.statusCode}` });
      const before = records.length;
      if (o.cards.succeeds) {
        const res = await request(o.targetUrl.replace(/\/+$/, '') + API_PATHS.payments, {
          method: 'POST',
          headers: { ...WIRE_HEADER_OBJECT, authorization: `Bearer ${test.secret}`, 'content-type': 'application/json', 'idempotency-key': `doctor_${Date.now().toString(36)}` },
          body: JSON.stringify({
            amount: 100,
            currency: 'EUR',
            card: { number: o.cards.succeeds, exp_month: 12, exp_year: new Date().getUTCFullYear() + 3, cvc: '123', holder_name: 'Pay Storm' },
            customer: { email: 'doctor@example.com', first_name: 'Pay', last_name: 'Storm', country: 'DE', phone: '+4930123456', address: '1 Test Street', city: 'Berlin', zip: '10115' },
            description: 'paystorm doctor webhook round-trip',
            return_url: 'https://example.com/return',
          }),
        });
        await res.body.dump();
        const deadline = Date.now() + o.webhook.roundTripTimeoutMs;
        while (Date.now() < deadline && !records.slice(before).some((r) => r.signature === 'ok')) await new Promise((r) => setTimeout(r, 100));
        const got = records.slice(before);
        const verified = got.find((r) => r.signature === 'ok');
        const ok = verified !== undefined;
        checks.push({
          name: 'webhook round-trip',
          ok,
          detail: ok
            ? `the target delivered ${verified.type ?? 'an event'} to the receiver, signature verified${how(verified)}`
            : got.length
              ? `deliveries arrived but none verified (${got.map((r) => `${r.signature}${r.signatureHeader ? ` in ${r.signatureHeader}` : ''}`).join(', ')}): check --webhook-secret${got.every((r) => r.signature === 'missing') ? ' and --webhook-signature-header (the service\'s own signature header name)' : ''}`
              : `no delivery within ${o.webhook.roundTripTimeoutMs / 1000} s after a create (answered ${res.statusCode}): configure the target's test-mode endpoint to reach this host's port ${receiver.port} (docs/webhooks.md)`,
          exitCode: EXIT.usage,
        });
      } else {
        checks.push({ name: 'webhook round-trip', ok: true, detail: 'skipped: needs a succeeds card (--cards) to make the target send an event' });
      }
    } finally {
      await receiver.close();
    }
  }
  return checks;
}

export function doctorExitCode(checks: readonly DoctorCheck[]): number {
  const failed = checks.filter((c) => !c.ok);
  if (!failed.length) return EXIT.pass;
  return failed.some((c) => c.exitCode === EXIT.target) ? EXIT.target : EXIT.usage;
}

export const DOCTOR_WEBHOOK_TIMEOUT_MS = LIMITS.webhookAckTimeoutMs * 3;
