// Alert intake benchmark helper: the data the runs need, created over the REST API as a user
// would (admin-created user, Premium group, projects, integrations), and an end-to-end check.
import * as L from "./alert-load.mjs";
import { ADMIN_TOKEN, sleep } from "./alert-system.mjs";

/** Seeds user, premium group, project, integrations over REST; returns what the runs need. */
export async function seed(url) {
  const admin = (m, p, b) => L.http(url, m, `/api/v4${p}`, ADMIN_TOKEN, b).then((r) => r.json);
  const user = await admin("POST", "/users", { username: "bencher", email: "bencher@example.com", name: "Bencher" });
  const { token } = await admin("POST", `/users/${user.id}/personal_access_tokens`, { name: "bench", scopes: ["api"] });
  const group = await admin("POST", "/groups", { name: "Bench", path: "bench", plan: "premium" });
  await admin("POST", `/groups/${group.id}/members`, { user_id: user.id, access_level: 40 });
  const project = await admin("POST", "/projects", { name: "intake", path: "intake", namespace_id: group.id });
  const as = (m, p, b) => L.http(url, m, `/api/v4/projects/${project.id}/alert_management${p}`, token, b).then((r) => r.json);
  const plain = await as("POST", "/http_integrations", { name: "Bench endpoint", active: true });
  const mapped = await as("POST", "/http_integrations", {
    name: "Bench mapped",
    active: true,
    payload_example: JSON.stringify(JSON.parse(L.NESTED_BODY.replace("[<id>]", "1"))),
    payload_attribute_mappings: L.NESTED_MAPPING,
  }).catch((err) => ({ error: err.message }));
  const prometheus = await as("PUT", "/prometheus_integration", { active: true }).catch((err) => ({ error: err.message }));
  // The accept → visible probe posts to a project of its own, so that polling its alert list
  // scans a few hundred rows, not the tens of thousands the load leaves in the main project.
  const probeProject = await admin("POST", "/projects", { name: "probe", path: "probe", namespace_id: group.id });
  const probe = await L.http(url, "POST", `/api/v4/projects/${probeProject.id}/alert_management/http_integrations`, token, {
    name: "Probe",
    active: true,
  });
  return { token, projectId: project.id, plain, mapped, prometheus, probeProjectId: probeProject.id, probe: probe.json };
}

/** Posts one alert and waits until it is listed (bounded): the system works end to end. */
export async function smoke(url, s) {
  const title = `smoke-${Date.now()}`;
  const res = await fetch(s.plain.url, {
    method: "POST",
    headers: { authorization: `Bearer ${s.plain.token}`, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  const body = await res.text();
  if (res.status !== 202) throw new Error(`webhook answered ${res.status} ${body.slice(0, 300)}`);
  for (let i = 0; i < 100; i++) {
    if ((await L.countAlerts(url, s.token, s.projectId, title)).total > 0) return JSON.parse(body);
    await sleep(100);
  }
  throw new Error("the smoke alert was accepted but not listed within 10 s");
}
