/**
 * A repro plan as a runnable bash script using plain curl: a header comment saying what rule,
 * what to look for and what to set, then the requests (concurrent ones fired with `&` and
 * `wait`), then the checks the script can make itself. Exit 1: reproduced, 0: not reproduced,
 * 2: it cannot tell by itself (setup failed, or no automatic check for the rule).
 */
import { DEFAULT_TEST_CARDS } from '../spec/index.ts';
import type { ReproCheck, ReproPlan, ReproRequest, ReproWait } from './plan.ts';

/** The script's variable for key i (0-based): PAYSTORM_KEY, PAYSTORM_KEY_2, ... */
export const keyVar = (i: number): string => (i === 0 ? 'PAYSTORM_KEY' : `PAYSTORM_KEY_${i + 1}`);
const cardVar = (outcome: string): string => `CARD_${outcome.toUpperCase()}`;

/** A string with `{{NAME}}` placeholders as one bash word: literal parts single-quoted, placeholders as "$NAME". */
export function bashWord(s: string): string {
  if (s === '') return "''";
  const parts: string[] = [];
  let last = 0;
  for (const m of s.matchAll(/\{\{([A-Z0-9_]+)\}\}/g)) {
    if (m.index! > last) parts.push(quote(s.slice(last, m.index)));
    parts.push(`"$${shellName(m[1])}"`);
    last = m.index! + m[0].length;
  }
  if (last < s.length) parts.push(quote(s.slice(last)));
  return parts.join('');
}
const quote = (lit: string): string => `'${lit.replace(/'/g, `'\\''`)}'`;
/** KEY_n placeholders are the script's PAYSTORM_KEY variables; CARD_* are CARD_* variables. */
const shellName = (name: string): string => (name.startsWith('KEY_') ? keyVar(Number(name.slice(4)) - 1) : name);

function authArg(r: ReproRequest, plan: ReproPlan): string {
  const k = `$${keyVar(r.key)}`;
  switch (r.auth) {
    case 'ok':
      return `"Bearer ${k}"`;
    case 'missing':
      return "''";
    case 'malformed':
      return "'Bearer'";
    case 'basic':
      return `"Basic $(printf '%s:' "${k}" | base64 | tr -d '\\n')"`;
    case 'basic-raw':
      return `"Basic ${k}"`;
    case 'bad-prefix':
      return `"Bearer xyz_test_sk_$(new_hex)"`;
    case 'unknown-key':
      return `"Bearer ${plan.keys[r.key]?.prefix || 'svc_test_sk_'}$(new_hex)"`;
  }
}

const stepName = (r: ReproRequest): string => (r.seq ? `${r.evidence ? 'r' : 's'}${r.seq}` : `after_${r.path.match(/PAY_\d+/)?.[0] ?? 'x'}`);

function requestLine(r: ReproRequest, plan: ReproPlan, background: boolean): string {
  const headers = Object.entries(r.headers).map(([k, v]) => bashWord(`${k}: ${v}`));
  const words = ['req', stepName(r), r.method, bashWord(r.path), authArg(r, plan), r.idem ? `"$${r.idem}"` : "''", r.body === null ? "''" : bashWord(r.body), ...headers];
  return words.join(' ') + (background ? ' &' : '');
}

function waitLine(w: ReproWait): string {
  return `wait_for ${w.pay} "$${w.pay}" "Bearer $${keyVar(w.key)}" ${quote(w.until.join(' '))} ${w.refundsSettled ? 1 : 0} || exit 2`;
}

function checkLines(c: ReproCheck): string[] {
  switch (c.kind) {
    case 'status':
      return [`check_status r${c.seq} ${quote(c.expectStatus.join(' '))} ${quote(c.expectCode ?? '')} ${quote(c.text)}`];
    case 'one-payment':
      return [`check_one_payment ${quote(c.text)} ${c.seqs.map((s) => `r${s}`).join(' ')}`];
    case 'not-all-admitted':
      return [`check_not_all_admitted ${quote(c.text)} ${c.seqs.map((s) => `r${s}`).join(' ')}`];
    case 'refunded-within':
      return [`check_refunded_within after_${c.pay} ${quote(c.text)}`];
    case 'none':
      return [`echo "paystorm repro $ID: "${quote(c.text)}`, 'UNKNOWN=1'];
  }
}

const comment = (text: string): string[] => text.split('\n').map((l) => `# ${l}`.trimEnd());

export function renderBash(plan: ReproPlan): string {
  const L: string[] = ['#!/usr/bin/env bash'];
  L.push(...comment(`paystorm repro ${plan.id}`));
  L.push(...comment(`Rule: ${plan.rules.join(', ')} (invariant ${plan.invariant}: ${plan.title})`));
  L.push(...comment(`What the run saw: ${plan.message.length > 600 ? plan.message.slice(0, 600) + '…' : plan.message}`));
  L.push('#');
  L.push('# What to look for:');
  for (const c of plan.checks) L.push(`#   - ${c.text}`);
  if (plan.concurrent) {
    L.push('#');
    L.push('# Concurrency: this violation needs requests in flight at the same time. The requests of each');
    L.push('# "at once" block below are fired together (`&`, then `wait`), as they overlapped in the run.');
  }
  L.push('#');
  L.push('# Set before running:');
  L.push('#   PAYSTORM_TARGET   the service base URL, e.g. http://127.0.0.1:4010 (paystorm serve --port 4010)');
  plan.keys.forEach((k, i) => L.push(`#   ${keyVar(i).padEnd(17)} a ${k.mode} API key of merchant ${k.merchant} (the run used ${k.label}${k.prefix ? `, prefix ${k.prefix}` : ''})`));
  for (const c of plan.cards) L.push(`#   ${cardVar(c).padEnd(17)} the sandbox card number for outcome ${c} (reference service: ${DEFAULT_TEST_CARDS[c]})`);
  L.push('#   REPRO_WAIT        optional: seconds to wait for a payment or refund to settle (default 30)');
  if (plan.notes.length) {
    L.push('#');
    L.push('# Not rebuilt:');
    for (const n of plan.notes) L.push(`#   - ${n}`);
  }
  L.push('#');
  L.push('# Exit: 1 reproduced, 0 not reproduced, 2 cannot tell (setup failed or no automatic check).');
  L.push('# Needs bash, curl, grep, sed. Keys appear here only as variables.');
  L.push('set -u');
  L.push(`ID=${quote(plan.id)}`);
  L.push(': "${PAYSTORM_TARGET:?set PAYSTORM_TARGET to the service base URL}"');
  plan.keys.forEach((_, i) => L.push(`: "\${${keyVar(i)}:?set ${keyVar(i)} to an API key (see the header)}"`));
  for (const c of plan.cards) L.push(`: "\${${cardVar(c)}:?set ${cardVar(c)} to the sandbox card number for outcome ${c} (see the header)}"`);
  L.push('PAYSTORM_TARGET="${PAYSTORM_TARGET%/}"');
  L.push('REPRO_WAIT="${REPRO_WAIT:-30}"');
  L.push('OUT="$(mktemp -d)"; trap \'rm -rf "$OUT"\' EXIT');
  L.push('UNKNOWN=0; REPRODUCED=0');
  L.push(HELPERS);
  // Fresh values per execution: a key reused across runs of the script would be replayed.
  L.push('RUN_TAG="repro-$(date +%s)-$$-$(new_hex | cut -c1-6)"');
  plan.idems.forEach((k, i) => L.push(k.length > 255 ? `${k.name}="$RUN_TAG-${i + 1}-$(head -c ${k.length} /dev/zero | tr '\\0' k)"; ${k.name}="\${${k.name}:0:${k.length}}"` : `${k.name}="$RUN_TAG-${i + 1}"`));
  for (const n of plan.nonces) L.push(`${n}="$(new_uuid)"`);
  L.push('');
  let step = 0;
  for (const s of plan.stages) {
    step++;
    if (s.kind === 'request') {
      const pay = s.request.seq === 0 ? s.request.path.match(/PAY_\d+/)?.[0] : undefined;
      L.push((pay ? `[ -z "$${pay}" ] || ` : '') + requestLine(s.request, plan, false));
      const c = s.request.captures;
      if (c && !s.request.evidence) L.push(`${c}="$(pay_id ${stepName(s.request)})"; [ -n "$${c}" ] || { echo "paystorm repro $ID: setup failed: no payment id in the answer to ${stepName(s.request)}"; exit 2; }`);
      else if (c) L.push(`${c}="$(pay_id ${stepName(s.request)})"`);
    } else if (s.kind === 'concurrent') {
      L.push(`# at once: ${s.requests.length} requests${s.requests[0]?.group ? ` (group ${s.requests[0].group})` : ''}`);
      for (const r of s.requests) L.push(requestLine(r, plan, true));
      L.push('wait');
      for (const r of s.requests) if (r.captures) L.push(`${r.captures}="$(pay_id ${stepName(r)})"`);
    } else if (s.kind === 'fill') L.push(`fill_window "Bearer $${keyVar(s.fill.key)}" ${s.fill.evidence} || exit 2`);
    else L.push(`[ -z "$${s.wait.pay}" ] || ` + waitLine(s.wait));
  }
  L.push('');
  for (const c of plan.checks) L.push(...checkLines(c));
  L.push('if [ "$REPRODUCED" = 1 ]; then echo "paystorm repro $ID: REPRODUCED"; exit 1; fi');
  L.push('if [ "$UNKNOWN" = 1 ]; then exit 2; fi');
  L.push('echo "paystorm repro $ID: not reproduced"; exit 0');
  return L.join('\n') + '\n';
}

const HELPERS = String.raw`
new_hex() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
new_uuid() { local h; h="$(new_hex)"; echo "$\{h:0:8}-$\{h:8:4}-4$\{h:13:3}-a$\{h:17:3}-$\{h:20:12}"; }
# req NAME METHOD PATH AUTHORIZATION IDEMPOTENCY-KEY BODY [HEADER...]: one request; answer in $OUT/NAME.*
req() {
  local name="$1" method="$2" path="$3" auth="$4" idem="$5" body="$6"; shift 6
  local args=(-sS -o "$OUT/$name.body" -w '%{http_code}' -X "$method" -H 'Accept: application/json')
  local h ctype=0
  for h in "$@"; do args+=(-H "$h"); case "$(echo "$h" | tr 'A-Z' 'a-z')" in content-type:*) ctype=1;; esac; done
  [ -n "$auth" ] && args+=(-H "Authorization: $auth")
  [ -n "$idem" ] && args+=(-H "Idempotency-Key: $idem")
  if [ -n "$body" ]; then [ "$ctype" = 1 ] || args+=(-H 'Content-Type: application/json'); args+=(--data-binary "$body"); fi
  curl "$\{args[@]}" "$PAYSTORM_TARGET$path" > "$OUT/$name.status" 2> "$OUT/$name.err" || echo 000 > "$OUT/$name.status"
  echo "$name: $method $path -> $(cat "$OUT/$name.status") $(head -c 400 "$OUT/$name.body" 2>/dev/null)"
}
status_of() { cat "$OUT/$1.status" 2>/dev/null || echo 000; }
pay_id() { grep -o '"id"[[:space:]]*:[[:space:]]*"pay_[^"]*"' "$OUT/$1.body" 2>/dev/null | head -1 | sed 's/.*"\(pay_[^"]*\)"$/\1/'; }
# The payment's own status is the first "status" of its body; the later ones are its refunds'.
statuses() { grep -o '"status"[[:space:]]*:[[:space:]]*"[A-Za-z_]*"' "$OUT/$1.body" 2>/dev/null | sed 's/.*"\([A-Za-z_]*\)"$/\1/' | tr 'A-Z' 'a-z'; }
# wait_for NAME PAYMENT-ID AUTHORIZATION "STATUSES" REFUNDS-SETTLED: poll until the payment has one of the statuses (any if empty) and, if asked, no pending refund.
wait_for() {
  local name="poll_$1" id="$2" auth="$3" until="$4" settled="$5" deadline=$(( $(date +%s) + REPRO_WAIT )) st
  while :; do
    curl -sS -o "$OUT/$name.body" -w '%{http_code}' -H "Authorization: $auth" -H 'Accept: application/json' "$PAYSTORM_TARGET/v1/payments/$id" > "$OUT/$name.status" 2>/dev/null
    st="$(statuses "$name" | head -1)"
    if [ -z "$until" ] || [[ " $until " == *" $st "* ]]; then
      if [ "$settled" = 0 ] || ! statuses "$name" | tail -n +2 | grep -qx pending; then echo "$1: $id is $st"; return 0; fi
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then echo "paystorm repro $ID: setup failed: $id did not reach '$until' within $REPRO_WAIT s (last: $st)"; return 1; fi
    sleep 0.2
  done
}
# check_status NAME "STATUSES" CODE TEXT: reproduced when the answer is not one of the statuses with that error code.
check_status() {
  local got; got="$(status_of "$1")"
  if [[ " $2 " != *" $got "* ]] || { [ -n "$3" ] && ! grep -q "\"code\"[[:space:]]*:[[:space:]]*\"$3\"" "$OUT/$1.body"; }; then
    echo "violation: $4; got $got $(grep -o '"code"[[:space:]]*:[[:space:]]*"[a-z_]*"' "$OUT/$1.body" | head -1)"; REPRODUCED=1
  else echo "ok: $4"; fi
}
# fill_window AUTHORIZATION N: spend the key's rate window so that the N requests after it end one past the limit:
# one list reads X-RateLimit-Remaining (R), then R + 1 - N more (cheap lists, ten at a time).
fill_window() {
  local r i count
  r="$(curl -sS -D - -o /dev/null -H "Authorization: $1" -H 'Accept: application/json' "$PAYSTORM_TARGET/v1/payments?limit=1" | tr -d '\r' | grep -i '^x-ratelimit-remaining:' | sed 's/^[^:]*:[[:space:]]*//')"
  case "$r" in ''|*[!0-9]*) echo "paystorm repro $ID: setup failed: no X-RateLimit-Remaining to size the window with"; return 1;; esac
  count=$(( r + 1 - $2 ))
  if [ "$count" -lt 0 ]; then echo "paystorm repro $ID: setup failed: only $r requests left in this window, $2 needed; rerun after X-RateLimit-Reset"; return 1; fi
  for ((i = 1; i <= count; i++)); do
    curl -sS -o /dev/null -H "Authorization: $1" -H 'Accept: application/json' "$PAYSTORM_TARGET/v1/payments?limit=1" &
    if (( i % 10 == 0 )); then wait; fi
  done; wait; echo "spent $(( count + 1 )) requests of the window ($r remained after the first)"
}
# check_not_all_admitted TEXT NAME...: reproduced when none of the requests was refused with 429.
check_not_all_admitted() {
  local text="$1" n; shift
  for n in "$@"; do if [ "$(status_of "$n")" = 429 ]; then echo "ok: $text"; return; fi; done
  echo "violation: $text; none of $* got 429"; REPRODUCED=1
}
# check_refunded_within NAME TEXT: reproduced when the payment's refunded total (either presentation) exceeds its amount.
check_refunded_within() {
  local amount refunded
  amount="$(grep -o '"amount"[[:space:]]*:[[:space:]]*[0-9]*' "$OUT/$1.body" 2>/dev/null | head -1 | grep -o '[0-9]*$')"
  refunded="$(grep -o '"\(refunded_amount\|amount_refunded\)"[[:space:]]*:[[:space:]]*[0-9]*' "$OUT/$1.body" 2>/dev/null | head -1 | grep -o '[0-9]*$')"
  if [ -z "$amount" ] || [ -z "$refunded" ]; then echo "cannot tell: $2 (no amount or refunded total in the answer)"; UNKNOWN=1
  elif [ "$refunded" -gt "$amount" ]; then echo "violation: $2; refunded $refunded of $amount"; REPRODUCED=1
  else echo "ok: $2 (refunded $refunded of $amount)"; fi
}
# check_one_payment TEXT NAME...: reproduced when the 2xx answers name more than one payment.
check_one_payment() {
  local text="$1" n ids=""; shift
  for n in "$@"; do case "$(status_of "$n")" in 2*) ids="$ids $(pay_id "$n")";; esac; done
  local distinct; distinct="$(echo $ids | tr ' ' '\n' | grep . | sort -u | grep -c .)"
  if [ "$distinct" -gt 1 ]; then echo "violation: $text; got $distinct payments:$(echo $ids | tr ' ' '\n' | sort -u | tr '\n' ' ')"; REPRODUCED=1
  else echo "ok: $text"; fi
}`
  // Written with $\{ so the template does not interpolate; bash wants ${.
  .replace(/\$\\\{/g, '$' + '{');
