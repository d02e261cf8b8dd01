import { spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";

/**
 * deploy/kubernetes renders with kustomize (installed by scripts/install-kustomize.sh) and what
 * it renders has the properties a production deployment needs: replicas, probes, resources,
 * non-root read-only containers, disruption budgets, autoscalers, headless Services for
 * client-side gRPC balancing, one Secret, network policies that expose only the gateway, and
 * graceful shutdown. The checks read the rendered objects, not the source files.
 */
const root = fileURLToPath(new URL("..", import.meta.url));
const kustomize = join(root, ".tmp", "bin", "kustomize");
const available = existsSync(kustomize);
if (!available) {
  const why = "kustomize is missing: run scripts/install-kustomize.sh";
  if (process.env.CI) throw new Error(why);
  console.warn(`[kubernetes] SKIPPED: ${why}`);
}

// biome-ignore lint/suspicious/noExplicitAny: rendered Kubernetes objects are checked field by field
type K8sObject = any;
const GRPC_SERVICES = { "auth-service": 50051, "alert-service": 50052, "settings-service": 50053 } as const;
const ALL_SERVICES = ["gateway", ...Object.keys(GRPC_SERVICES)];

function render(dir: string): K8sObject[] {
  const out = spawnSync(kustomize, ["build", dir], { encoding: "utf8" });
  if (out.status !== 0) throw new Error(`kustomize build ${dir} failed: ${out.stderr}`);
  return parseAllDocuments(out.stdout).map((d) => d.toJS());
}

describe.skipIf(!available)("deploy/kubernetes", () => {
  let work: string;
  let objects: K8sObject[];
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const named = (kind: string, name: string) => ofKind(kind).find((o) => o.metadata.name === name);

  beforeAll(() => {
    // The production overlay makes its Secret from secrets.env, which is never committed.
    work = mkdtempSync(join(tmpdir(), "tocsin-k8s-"));
    cpSync(join(root, "deploy", "kubernetes"), work, { recursive: true });
    const overlay = join(work, "overlays", "production");
    copyFileSync(join(overlay, "secrets.env.example"), join(overlay, "secrets.env"));
    objects = render(overlay);
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("renders the base on its own and the production overlay into one namespace", () => {
    expect(render(join(work, "base")).length).toBeGreaterThan(10);
    const namespaced = objects.filter((o) => o.kind !== "Namespace");
    expect(new Set(namespaced.map((o) => o.metadata.namespace))).toEqual(new Set(["tocsin"]));
  });

  it("runs every service from one image, in several replicas, with probes and resources", () => {
    const deployments = ofKind("Deployment");
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual([...ALL_SERVICES].sort());
    const images = new Set<string>();
    for (const d of deployments) {
      expect(d.spec.replicas, d.metadata.name).toBeGreaterThanOrEqual(2);
      const [c] = d.spec.template.spec.containers;
      images.add(c.image);
      expect(c.env).toContainEqual({ name: "SERVICE", value: d.metadata.name });
      for (const kind of ["requests", "limits"]) {
        expect(c.resources[kind], `${d.metadata.name} ${kind}`).toHaveProperty("cpu");
        expect(c.resources[kind], `${d.metadata.name} ${kind}`).toHaveProperty("memory");
      }
      if (d.metadata.name === "gateway") {
        expect(c.readinessProbe.httpGet.path).toBe("/-/readiness");
        expect(c.livenessProbe.httpGet.path).toBe("/-/health");
        // Scraped where the container serves /metrics.
        const { annotations } = d.spec.template.metadata;
        expect(annotations).toMatchObject({ "prometheus.io/scrape": "true", "prometheus.io/path": "/metrics" });
        expect(c.ports).toContainEqual(expect.objectContaining({ containerPort: Number(annotations["prometheus.io/port"]) }));
      } else {
        const port = GRPC_SERVICES[d.metadata.name as keyof typeof GRPC_SERVICES];
        expect(c.readinessProbe.grpc.port).toBe(port);
        expect(c.livenessProbe.grpc.port).toBe(port);
        expect(c.env).toContainEqual({ name: "LISTEN_ADDR", value: `0.0.0.0:${port}` });
      }
    }
    expect([...images]).toEqual(["registry.example.com/tocsin:0.1.0"]);
  });

  it("runs containers as non-root with a read-only root filesystem and no privileges", () => {
    for (const d of ofKind("Deployment")) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot, d.metadata.name).toBe(true);
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const c of pod.containers) {
        expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
        expect(c.securityContext.capabilities.drop).toEqual(["ALL"]);
        // The only writable place is an emptyDir (DATA_DIR and Node's temp files).
        expect(c.volumeMounts).toEqual([{ name: "tmp", mountPath: "/tmp" }]);
      }
    }
  });

  it("drains on shutdown within the grace period", () => {
    for (const d of ofKind("Deployment")) {
      const pod = d.spec.template.spec;
      expect(pod.terminationGracePeriodSeconds, d.metadata.name).toBeGreaterThanOrEqual(30);
      expect(d.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
    }
    // The gateway leaves the Service's endpoints before it stops taking requests.
    expect(named("Deployment", "gateway").spec.template.spec.containers[0].lifecycle.preStop).toBeDefined();
  });

  it("balances gRPC on the client through headless Services and dns:/// addresses", () => {
    const config = named("ConfigMap", "tocsin-config").data;
    for (const [name, port] of Object.entries(GRPC_SERVICES)) {
      const svc = named("Service", name);
      expect(svc.spec.clusterIP, name).toBe("None");
      expect(svc.spec.ports).toEqual([expect.objectContaining({ port, targetPort: "grpc" })]);
      const variable = `${name.split("-")[0]?.toUpperCase()}_SERVICE_ADDR`;
      expect(config[variable]).toBe(`dns:///${name}:${port}`);
    }
    expect(named("Service", "gateway").spec.clusterIP).toBeUndefined();
  });

  it("keeps disruption budgets and autoscalers for the gateway and alert-service", () => {
    for (const name of ["gateway", "alert-service"]) {
      expect(named("PodDisruptionBudget", name).spec).toMatchObject({
        minAvailable: 1,
        selector: { matchLabels: { "app.kubernetes.io/name": name } },
      });
      const hpa = named("HorizontalPodAutoscaler", name).spec;
      expect(hpa.scaleTargetRef).toMatchObject({ kind: "Deployment", name });
      expect(hpa.minReplicas).toBeLessThanOrEqual(named("Deployment", name).spec.replicas);
      expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
    }
  });

  it("takes the secrets from one Secret that every process reads", () => {
    const [secret] = ofKind("Secret");
    expect(Object.keys(secret.data)).toEqual(expect.arrayContaining(["SECRET_KEY", "ADMIN_TOKEN", "SMTP_URL"]));
    for (const d of ofKind("Deployment")) {
      const refs = d.spec.template.spec.containers[0].envFrom;
      expect(refs).toContainEqual({ secretRef: { name: secret.metadata.name } });
      expect(refs).toContainEqual({ configMapRef: { name: "tocsin-config" } });
    }
  });

  it("exposes only the gateway: everything else takes calls from Tocsin's own pods", () => {
    const policies = ofKind("NetworkPolicy");
    const denyAll = policies.find((p) => Object.keys(p.spec.podSelector).length === 0);
    expect(denyAll.spec).toMatchObject({ policyTypes: ["Ingress"] });
    expect(denyAll.spec.ingress).toBeUndefined();
    const openToAll = policies.filter((p) => p.spec.ingress?.some((rule: K8sObject) => !rule.from));
    expect(openToAll.map((p) => p.spec.podSelector.matchLabels)).toEqual([{ "app.kubernetes.io/name": "gateway" }]);
    const grpc = policies.find((p) => p.spec.podSelector.matchLabels?.["app.kubernetes.io/component"] === "grpc");
    expect(grpc.spec.ingress[0].from).toEqual([{ podSelector: { matchLabels: { "app.kubernetes.io/part-of": "tocsin" } } }]);
    for (const d of ofKind("Deployment").filter((d) => d.metadata.name !== "gateway")) {
      expect(d.spec.template.metadata.labels["app.kubernetes.io/component"]).toBe("grpc");
    }
  });
});

describe("deploy/Dockerfile", () => {
  const dockerfile = readFileSync(join(root, "deploy", "Dockerfile"), "utf8");

  it("builds one image for the four services: multi-stage, pinned base, non-root", () => {
    const stages = dockerfile.match(/^FROM .+$/gm) ?? [];
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+\.\d+\.\d+-[a-z]+-slim(@sha256:[0-9a-f]{64})?$/m);
    expect(dockerfile).toMatch(/^USER (node|\d+)$/m);
    // The service is chosen when the container starts (SERVICE), not when the image is built.
    expect(dockerfile).not.toMatch(/ARG SERVICE/);
    for (const s of ALL_SERVICES) expect(dockerfile).toContain(`COPY ${s} ${s}`);
  });
});
