/**
 * The k6 system tags paystorm's k6 scripts keep (`options.systemTags`). k6 adds every default
 * system tag to every sample (proto, subproto, status, method, url, name, group, check, error,
 * error_code, tls_version, scenario, service, expected_response: k6 metrics/system_tag.go,
 * docs "Tags and Groups"), and `--out json` repeats them on each of the ~10 Point lines a
 * request makes; most say nothing anyone reads. Kept:
 *
 * - `status`: the converter counts requests by operation and status (K6Facts.requests);
 *   k6's summary and sub-metric thresholds by status.
 * - `method`: what the request was, beside paystorm's own `op` tag (a user tag, always written).
 * - `scenario`: the converter lists the scenarios a file holds; on `iterations` points it is
 *   what completeness is judged from.
 * - `group`: k6 adds `::setup` / `::teardown` to what setup() and teardown() send.
 * - `check`: the converter counts checks by name (K6Facts.checks).
 * - `error`, `error_code`: why a request failed, only on failed requests (nothing on a normal one).
 *
 * Dropped: `url` and `name` (the path, the same for every request of an operation: `op` says
 * it), `proto`, `tls_version`, `subproto`, `service` (constant or unused),
 * `expected_response` (k6 emits `http_req_failed` from the response callback whether or not
 * the tag is on: lib/netext/httpext/transport.go).
 *
 * No imports: the k6 bundles import it (options), the converter documents what it reads with it.
 */
export const K6_SYSTEM_TAGS = ['status', 'method', 'scenario', 'group', 'check', 'error', 'error_code'] as const;
