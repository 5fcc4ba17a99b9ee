/**
 * The sandbox driver protocol (src/spec/sandbox.ts), served by the service:
 * - GET <3DS redirect_url>?result=success|fail completes the challenge, 303 to return_url
 *   (without `result`, an HTML page with both choices).
 * - GET <hosted redirect_url>: the card form. POST it form-encoded with number,
 *   exp_month, exp_year, cvc, holder_name: 303 to return_url, or to the 3DS
 *   challenge when the card needs one. `action=cancel` cancels the payment.
 * A used or expired page answers 410.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { THREE_DS_RESULT_PARAM, luhnValid } from '../spec/index.ts';
import type { BugFlags } from './bugs.ts';
import { HTML_TYPE, escapeHtml, parseQuery, readBody, send } from './http.ts';
import { type Lifecycle, PAGE_PATHS } from './lifecycle.ts';
import type { PaymentRecord } from './model.ts';
import type { PaymentStore } from './store.ts';
import { isExpired, parseCard } from './validate.ts';

export class SandboxPages {
  constructor(
    private readonly store: PaymentStore,
    private readonly lifecycle: Lifecycle,
    private readonly bugs: BugFlags,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, path: string, qs: string): Promise<void> {
    if (path.startsWith(PAGE_PATHS.threeDs) && req.method === 'GET') return this.threeDs(res, path.slice(PAGE_PATHS.threeDs.length), qs);
    if (path.startsWith(PAGE_PATHS.hosted)) {
      const token = path.slice(PAGE_PATHS.hosted.length);
      if (req.method === 'GET') return this.hostedForm(res, token);
      if (req.method === 'POST') return this.hostedSubmit(req, res, token);
    }
    page(res, 404, 'Not found', '<p>No such sandbox page.</p>');
  }

  /** The page and its payment when the page is still the payment's current, unused action. */
  private active(token: string, kind: '3ds' | 'hpp'): { p: PaymentRecord } | { gone: string } {
    const pg = this.lifecycle.pages.get(token);
    if (!pg || pg.kind !== kind) return { gone: 'unknown' };
    const p = this.store.get(pg.paymentId);
    if (!p) return { gone: 'unknown' };
    if (pg.used || p.status !== 'requires_action' || !p.nextAction?.redirectUrl.endsWith(token)) return { gone: `This page is no longer active (payment ${p.status}).` };
    return { p };
  }

  private threeDs(res: ServerResponse, token: string, qs: string): void {
    const a = this.active(token, '3ds');
    if ('gone' in a) return a.gone === 'unknown' ? page(res, 404, 'Not found', '<p>No such challenge.</p>') : page(res, 410, 'Challenge closed', `<p>${escapeHtml(a.gone)}</p>`);
    const result = parseQuery(qs).get(THREE_DS_RESULT_PARAM);
    if (result === undefined) {
      return page(
        res,
        200,
        '3D Secure challenge (sandbox)',
        `<p>Payment of ${a.p.amount} ${escapeHtml(a.p.currency)}.</p><p><a id="success" href="?${THREE_DS_RESULT_PARAM}=success">Authenticate</a> <a id="fail" href="?${THREE_DS_RESULT_PARAM}=fail">Fail authentication</a></p>`,
      );
    }
    if (result !== 'success' && result !== 'fail') return page(res, 400, 'Bad request', '<p>result must be success or fail.</p>');
    this.lifecycle.pages.get(token)!.used = true;
    this.lifecycle.complete3ds(a.p, result === 'success');
    this.redirect(res, a.p);
  }

  private hostedForm(res: ServerResponse, token: string): void {
    const a = this.active(token, 'hpp');
    if ('gone' in a) return a.gone === 'unknown' ? page(res, 404, 'Not found', '<p>No such payment page.</p>') : page(res, 410, 'Payment page closed', `<p>${escapeHtml(a.gone)}</p>`);
    const holder = escapeHtml(a.p.customer.name ?? '');
    page(
      res,
      200,
      'Pay (sandbox hosted page)',
      `<p>Amount: ${a.p.amount} ${escapeHtml(a.p.currency)}</p>
<form method="post">
<label>Card number <input name="number" autocomplete="cc-number"></label>
<label>Month <input name="exp_month" size="2"></label> <label>Year <input name="exp_year" size="4"></label>
<label>CVC <input name="cvc" size="4"></label>
<label>Name <input name="holder_name" value="${holder}"></label>
<button type="submit" id="pay">Pay</button>
<button type="submit" name="action" value="cancel" id="cancel">Cancel</button>
</form>`,
    );
  }

  private async hostedSubmit(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    const buf = await readBody(req, 64 * 1024);
    const a = this.active(token, 'hpp');
    if ('gone' in a) return a.gone === 'unknown' ? page(res, 404, 'Not found', '<p>No such payment page.</p>') : page(res, 410, 'Payment page closed', `<p>${escapeHtml(a.gone)}</p>`);
    const form = parseQuery(buf ? buf.toString('utf8') : '');
    const pg = this.lifecycle.pages.get(token)!;
    if (form.get('action') === 'cancel') {
      pg.used = true;
      this.lifecycle.cancel(a.p);
      return this.redirect(res, a.p);
    }
    const toInt = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : s);
    const raw = { number: form.get('number')?.replace(/\s+/g, ''), exp_month: toInt(form.get('exp_month')), exp_year: toInt(form.get('exp_year')), cvc: form.get('cvc'), holder_name: form.get('holder_name') };
    let card;
    try {
      card = parseCard(raw, 'card', this.bugs);
    } catch (e) {
      return page(res, 400, 'Check the card details', `<p>${escapeHtml((e as Error).message)}</p>`);
    }
    if (!luhnValid(card.number)) return page(res, 400, 'Check the card details', '<p>The card number is invalid.</p>');
    if (isExpired(card)) return page(res, 400, 'Check the card details', '<p>The card has expired.</p>');
    pg.used = true;
    const liveTestCard = a.p.mode === 'live' && this.lifecycle.isTestCard(card.number) && !this.bugs['auth-live-accepts-test-card'];
    await this.lifecycle.submitHosted(a.p, card, liveTestCard);
    this.redirect(res, a.p);
  }

  /** 303 to the 3DS challenge when one is open, else to return_url. */
  private redirect(res: ServerResponse, p: PaymentRecord): void {
    const target = p.status === 'requires_action' && p.nextAction?.reason === 'three_d_secure' && !p.threeDsPassed ? p.nextAction.redirectUrl : p.returnUrl;
    if (!target) return page(res, 200, 'Done', `<p>Payment ${escapeHtml(p.id)} is ${p.status}. You can close this page.</p>`);
    res.writeHead(303, { location: target, 'content-length': 0 });
    res.end();
  }
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  send(res, status, `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`, HTML_TYPE);
}
