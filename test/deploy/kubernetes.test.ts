import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';

/*
 * deploy/kubernetes/, on paper but checked: every object is validated against the Kubernetes
 * API's own schemas as the kubernetes-models packages ship them (each model's validate() checks
 * the object against its OpenAPI schema), and the manifests say what docs/deployment.md says.
 * No cluster runs them here.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const DIR = path.join(ROOT, 'deploy', 'kubernetes');

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  [field: string]: unknown;
}

interface Model {
  validate(): void;
}

/** The model's module: core objects under kubernetes-models/v1, the others under their group. */
async function modelOf(manifest: Manifest): Promise<new (data: unknown) => Model> {
  const specifier = `kubernetes-models/${manifest.apiVersion}/${manifest.kind}`;
  const loaded = (await import(/* @vite-ignore */ specifier)) as Record<
    string,
    new (data: unknown) => Model
  >;
  const model = loaded[manifest.kind];
  if (!model) throw new Error(`${specifier} has no ${manifest.kind}`);
  return model;
}

async function manifests(): Promise<Manifest[]> {
  const files = (await readdir(DIR)).filter((file) => file.endsWith('.yaml')).sort();
  const all: Manifest[] = [];
  for (const file of files) {
    for (const document of parseAllDocuments(await readFile(path.join(DIR, file), 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors.join('; ')}`);
      all.push(document.toJS() as Manifest);
    }
  }
  return all;
}

function find(all: Manifest[], kind: string, name: string): Manifest {
  const found = all.find((each) => each.kind === kind && each.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

interface Container {
  command: string[];
  readinessProbe?: { httpGet: { path: string } };
  livenessProbe?: { httpGet: { path: string } };
}
interface PodTemplate {
  spec: { terminationGracePeriodSeconds?: number; containers: Container[] };
}
const podOf = (manifest: Manifest) => (manifest.spec as { template: PodTemplate }).template.spec;

describe('deploy/kubernetes', () => {
  it('holds only objects the Kubernetes schemas accept', async () => {
    const all = await manifests();
    expect(all.map((each) => `${each.kind}/${each.metadata.name}`).sort()).toEqual([
      'ConfigMap/portal-config',
      'Deployment/portal-api',
      'Deployment/portal-reports',
      'Job/portal-migrate',
      'NetworkPolicy/portal-api-ingress',
      'NetworkPolicy/portal-reports-from-api-only',
      'Secret/portal-secrets',
      'Service/portal-api',
      'Service/portal-reports',
    ]);
    for (const manifest of all) {
      const Model = await modelOf(manifest);
      expect(() => {
        new Model(manifest).validate();
      }, `${manifest.kind}/${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('rejects what the schemas forbid (the validation is not a no-op)', async () => {
    const api = find(await manifests(), 'Deployment', 'portal-api');
    const Model = await modelOf(api);
    const broken = { ...api, spec: { ...(api.spec as object), replicas: 'two' } };
    expect(() => {
      new Model(broken).validate();
    }).toThrow();
  });

  it('runs two API replicas with the probes and the stop deadline of docs/production.md', async () => {
    const all = await manifests();
    const api = find(all, 'Deployment', 'portal-api');
    expect((api.spec as { replicas: number }).replicas).toBe(2);
    const pod = podOf(api);
    const [container] = pod.containers;
    expect(container?.command).toEqual(['node', '--enable-source-maps', 'dist/src/server.js']);
    expect(container?.readinessProbe?.httpGet.path).toBe('/readyz');
    expect(container?.livenessProbe?.httpGet.path).toBe('/healthz');
    // The API drains for at most 10 s, then stops at once: the grace period is longer.
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(10);
    const reports = podOf(find(all, 'Deployment', 'portal-reports'));
    expect(reports.containers[0]?.command).toContain('dist/src/reports/main.js');
    const job = podOf(find(all, 'Job', 'portal-migrate'));
    expect(job.containers[0]?.command).toEqual(['node', 'deploy/image/migrate.mjs']);
  });

  it('names every setting as the portal reads it', async () => {
    const all = await manifests();
    const sources = (
      await Promise.all(
        ['src/config.ts', 'src/reports/config.ts'].map((file) =>
          readFile(path.join(ROOT, file), 'utf8'),
        ),
      )
    ).join('\n');
    const keys = [
      ...Object.keys(find(all, 'ConfigMap', 'portal-config').data as object),
      ...Object.keys(find(all, 'Secret', 'portal-secrets').stringData as object),
    ];
    expect(keys).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'REDIS_URL',
        'PORTAL_JWT_SECRET',
        'REPORTS_SERVICE_SECRET',
        'REPORTS_URL',
        'PORTAL_ALLOWED_ORIGIN',
        'BACKEND_URL',
      ]),
    );
    for (const key of keys) expect(sources, key).toContain(`'${key}'`);
  });

  it('lets only the API reach the reports service', async () => {
    const policy = find(await manifests(), 'NetworkPolicy', 'portal-reports-from-api-only');
    expect(policy.spec).toMatchObject({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'portal-reports' } },
      ingress: [
        { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'portal-api' } } }] },
      ],
    });
  });
});
