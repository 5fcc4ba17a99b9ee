/**
 * k6/operator/testrun.yaml against the TestRun CRD (k6.io/v1alpha1, fields of
 * k6-operator's api/v1alpha1 TestRunSpec and Pod), the docs' commands that create its
 * ConfigMap and Secret, and the script it runs: the initializer (k6 archive with
 * `arguments` only, no pod env) and the runners (arguments plus runner.env) must plan
 * the same scenario.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { SECRET_KEY_PATTERN } from '../../src/spec/keys.ts';
import { parseKeys } from '../../k6/lib/config.ts';
import { buildBundles, removeBundles, ROOT, runShim } from './helpers.ts';

const YAML_PATH = join(ROOT, 'k6', 'operator', 'testrun.yaml');
const TEXT = readFileSync(YAML_PATH, 'utf8');
const DOC = readFileSync(join(ROOT, 'docs', 'k6.md'), 'utf8');

const SPEC_FIELDS = ['script', 'parallelism', 'separate', 'arguments', 'ports', 'initializer', 'starter', 'runner', 'quiet', 'paused', 'scuttle', 'cleanup', 'testRunId', 'token'];
const POD_FIELDS = [
  'affinity',
  'automountServiceAccountToken',
  'env',
  'image',
  'imagePullSecrets',
  'imagePullPolicy',
  'metadata',
  'nodeSelector',
  'tolerations',
  'topologySpreadConstraints',
  'resources',
  'serviceAccountName',
  'securityContext',
  'containerSecurityContext',
  'envFrom',
  'readinessProbe',
  'livenessProbe',
  'initContainers',
  'volumes',
  'volumeMounts',
  'priorityClassName',
];

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface TestRun {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    parallelism: number;
    script: { configMap: { name: string; file: string } };
    arguments: string;
    runner: { env: EnvVar[] } & Record<string, unknown>;
  } & Record<string, unknown>;
}

const tr = parse(TEXT) as TestRun;
afterAll(removeBundles);

/** `-e NAME=VALUE` pairs and the other flags of `arguments` (k6-operator splits it like a shell would, without expansion). */
function argEnv(args: string): { env: Record<string, string>; flags: string[] } {
  const tokens = args.trim().split(/\s+/);
  const env: Record<string, string> = {};
  const flags: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === '-e' || t === '--env') {
      const [k, ...v] = tokens[++i].split('=');
      env[k] = v.join('=');
    } else if (t.startsWith('-')) {
      flags.push(t);
      if (['--tag', '--out', '-o', '--summary-export', '--log-output'].includes(t)) i++;
    } else throw new Error(`stray argument ${t}`);
  }
  return { env, flags };
}

describe('k6-operator TestRun (k6/operator/testrun.yaml)', () => {
  it('is a TestRun of k6.io/v1alpha1 with only fields the CRD defines', () => {
    expect(tr.apiVersion).toBe('k6.io/v1alpha1');
    expect(tr.kind).toBe('TestRun');
    expect(tr.metadata.name).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    for (const k of Object.keys(tr.spec)) expect(SPEC_FIELDS, `spec.${k}`).toContain(k);
    for (const k of Object.keys(tr.spec.runner)) expect(POD_FIELDS, `spec.runner.${k}`).toContain(k);
    expect(Number.isInteger(tr.spec.parallelism) && tr.spec.parallelism >= 1).toBe(true);
    expect(typeof tr.spec.arguments).toBe('string');
  });

  it('runs dist/k6/mixed.js from the ConfigMap the docs create', () => {
    const cm = tr.spec.script.configMap;
    expect(cm.file).toBe('mixed.js');
    expect(DOC).toContain(`kubectl create configmap ${cm.name} --from-file=${cm.file}=dist/k6/mixed.js`);
    expect(TEXT).toContain(`kubectl create configmap ${cm.name} --from-file=${cm.file}=dist/k6/mixed.js`);
    expect(DOC).toContain('kubectl apply -f k6/operator/testrun.yaml');
  });

  it('passes TARGET and KEYS in runner.env, KEYS from a Secret, and no key in the file', () => {
    const env = tr.spec.runner.env;
    const byName = Object.fromEntries(env.map((e) => [e.name, e]));
    expect(byName.TARGET?.value).toMatch(/^https?:\/\//);
    const ref = byName.KEYS?.valueFrom?.secretKeyRef;
    expect(ref).toBeDefined();
    expect(byName.KEYS.value).toBeUndefined();
    expect(DOC).toContain(`kubectl create secret generic ${ref!.name} --from-literal=${ref!.key}=`);
    for (const e of env) expect(e.name).toMatch(/^[A-Z_][A-Z0-9_]*$/);
    expect(TEXT.match(SECRET_KEY_PATTERN)).toBeNull();
  });

  it('arguments give RATE and DURATION with -e, so the initializer and the runners plan the same scenario', async () => {
    const { env, flags } = argEnv(tr.spec.arguments);
    expect(Number(env.RATE)).toBeGreaterThan(0);
    expect(env.DURATION).toMatch(/^(\d+(ms|s|m|h))+$/);
    for (const f of flags) expect(['--tag', '--out', '-o', '--summary-export', '--log-output', '--no-thresholds', '--quiet']).toContain(f);
    const dir = buildBundles();
    const bundle = join(dir, `${tr.spec.script.configMap.file}`);
    // Initializer: `k6 archive` sees only the -e values of arguments.
    const init = await runShim(bundle, env, { mode: 'options' });
    expect(init.fatal).toBeNull();
    // Runner: arguments plus the pod environment (a stand-in key for the Secret).
    const podEnv: Record<string, string> = { ...env, KEYS: 'm1:svc_test_sk_k8sSecretStandIn1,m2:svc_test_sk_k8sSecretStandIn2' };
    for (const e of tr.spec.runner.env) if (e.value !== undefined) podEnv[e.name] = e.value;
    const runner = await runShim(bundle, podEnv, { mode: 'options' });
    expect(runner.fatal).toBeNull();
    expect(runner.options).toEqual(init.options);
    const sc = (runner.options as { scenarios: Record<string, Record<string, unknown>> }).scenarios.mixed;
    expect(sc).toMatchObject({ executor: 'constant-arrival-rate', rate: Math.round(Number(env.RATE) * 60), timeUnit: '1m', duration: env.DURATION });
  });
});

describe('k6-operator: one key set per shard, output files collected, one paystorm merge', () => {
  interface Mount { name: string; mountPath: string; subPathExpr?: string; readOnly?: boolean }
  interface Volume { name: string; persistentVolumeClaim?: { claimName: string; readOnly?: boolean } }
  const runner = tr.spec.runner as unknown as { env: (EnvVar & { valueFrom?: { fieldRef?: { fieldPath: string } } })[]; volumes: Volume[]; volumeMounts: Mount[] };
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'k6', 'operator', 'results.yaml'), 'utf8')).map((d) => d.toJS()) as {
    apiVersion: string;
    kind: string;
    metadata: { name: string };
    spec: Record<string, unknown>;
  }[];

  it('each runner writes k6 --out json to its own folder (subPathExpr $(POD_NAME)) of a ReadWriteMany claim', () => {
    const { flags } = argEnv(tr.spec.arguments);
    expect(flags).toContain('--out');
    const out = /--out json=(\S+)/.exec(tr.spec.arguments)?.[1];
    expect(out).toMatch(/\.json\.gz$/);
    const pod = runner.env.find((e) => e.name === 'POD_NAME');
    expect(pod?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    const mount = runner.volumeMounts.find((m) => out!.startsWith(`${m.mountPath}/`))!;
    expect(mount.subPathExpr).toBe('$(POD_NAME)');
    const claim = runner.volumes.find((v) => v.name === mount.name)?.persistentVolumeClaim?.claimName;
    const pvc = docs.find((d) => d.kind === 'PersistentVolumeClaim')!;
    expect(pvc.apiVersion).toBe('v1');
    expect(pvc.metadata.name).toBe(claim);
    expect(pvc.spec.accessModes).toEqual(['ReadWriteMany']);
    // The reader pod mounts the same claim, read-only, for kubectl cp.
    const reader = docs.find((d) => d.kind === 'Pod')!;
    const rs = reader.spec as { containers: { volumeMounts: Mount[] }[]; volumes: Volume[] };
    expect(rs.volumes[0].persistentVolumeClaim?.claimName).toBe(claim);
    expect(rs.containers[0].volumeMounts[0]).toMatchObject({ mountPath: '/results', readOnly: true });
    // The docs collect the files and judge them with one merge.
    expect(DOC).toContain(`kubectl cp ${reader.metadata.name}:/results ./k6-results`);
    expect(DOC).toContain(`npx paystorm merge k6-results/*/${out!.split('/').pop()}`);
    expect(DOC).toContain('kubectl apply -f k6/operator/results.yaml');
  });

  it('KEYS holds one key set per runner; runner n (pod paystorm-mixed-n-…) uses set n, no key shared', () => {
    const n = tr.spec.parallelism;
    const sets = Array.from({ length: n }, (_, i) => `m${i + 1}:svc_test_sk_shard${i + 1}StandInKey${i}`);
    const used = new Set<string>();
    for (let i = 1; i <= n; i++) {
      const keys = parseKeys({ KEYS: sets.join(';'), POD_NAME: `${tr.metadata.name}-${i}-ab1cd` });
      expect(keys).toHaveLength(1);
      expect(used.has(keys[0].label)).toBe(false);
      used.add(keys[0].label);
    }
    expect(used.size).toBe(n);
    expect(TEXT).toMatch(/KEYS='[^']*;[^']*'/);
  });
});
