import { afterAll, beforeAll, describe, it } from "vitest";
import { createSim, type RunningSim } from "../../src/index.js";
import { definition } from "../../src/provider-b/index.js";
import { expectRouted, type Row } from "../endpoint-table.js";
import { type Call, client } from "../wire-client.js";

let sim: RunningSim;
let cloud: Call;
let fwd: Call;
beforeAll(async () => {
  sim = await createSim(definition, { quiet: true });
  cloud = client(sim.url, { authorization: "Bearer sim-provider-b-key" });
  fwd = client(`${sim.origin}/api/v1/forward`, { authorization: "Bearer sim-provider-b-key" });
});
afterAll(async () => {
  await sim.close();
});

// Rows shared by both gateways (docs/wire/provider-b.md §3 on the Managed base; docs/wire/provider-b.md §4:
// "the paths and bodies of §3 on the Forward base").
const SHARED: Row[] = [
  ["POST", "/environments"],
  ["GET", "/environments"],
  ["GET", "/environments/{id}"],
  ["POST", "/environments/{id}"],
  ["DELETE", "/environments/{id}"],
  ["POST", "/environments/{id}/archive"],
  ["POST", "/vaults"],
  ["GET", "/vaults"],
  ["POST", "/vaults/{id}/credentials"],
  ["GET", "/vaults/{id}/credentials"],
  ["DELETE", "/vaults/{id}"],
  ["POST", "/files"],
  ["GET", "/files"],
  ["GET", "/files/{id}"],
  ["DELETE", "/files/{id}"],
  ["GET", "/files/{id}/content"],
  ["POST", "/skills"],
  ["POST", "/skills/{id}/versions"],
  ["GET", "/skills/{id}"],
  ["GET", "/skills"],
  ["DELETE", "/skills/{id}"],
  ["POST", "/memory_stores"],
  ["GET", "/memory_stores/{id}"],
  ["GET", "/memory_stores"],
  ["POST", "/memory_stores/{id}"],
  ["POST", "/memory_stores/{id}/archive"],
  ["POST", "/memory_stores/{id}/memories"],
  ["GET", "/memory_stores/{id}/memories"],
  ["GET", "/memory_stores/{id}/memories/{mid}"],
  ["POST", "/memory_stores/{id}/memories/{mid}"],
  ["DELETE", "/memory_stores/{id}/memories/{mid}"],
  ["GET", "/memory_stores/{id}/versions"],
  ["GET", "/memory_stores/{id}/versions/{vid}"],
  ["POST", "/memory_stores/{id}/versions/{vid}/redact"],
  ["POST", "/sessions"],
  ["GET", "/sessions/{id}"],
  ["GET", "/sessions"],
  ["POST", "/sessions/{id}/events"],
  ["GET", "/sessions/{id}/events"],
  ["GET", "/sessions/{id}/events/stream"],
  ["GET", "/tunnels"],
  ["GET", "/tunnels/{id}"],
];

const MANAGED_ONLY: Row[] = [
  ["DELETE", "/memory_stores/{id}"],
  ["POST", "/agents"],
  ["GET", "/agents/{id}"],
  ["GET", "/agents"],
  ["PUT", "/agents/{id}"],
  ["DELETE", "/agents/{id}"],
  ["POST", "/agents/{id}/archive"],
  ["POST", "/deployments"],
  ["GET", "/deployments/{id}"],
  ["GET", "/deployments"],
  ["POST", "/deployments/{id}"],
  ["POST", "/deployments/{id}/archive"],
  ["POST", "/deployments/{id}/run"],
  ["POST", "/deployments/{id}/pause"],
  ["POST", "/deployments/{id}/unpause"],
  ["DELETE", "/sessions/{id}"],
  ["POST", "/sessions/{id}/cancel"],
  ["GET", "/models"],
];

const FORWARD_ONLY: Row[] = [
  ["POST", "/templates"],
  ["GET", "/templates/{id}"],
  ["GET", "/templates"],
  ["POST", "/templates/{id}"],
  ["POST", "/templates/{id}/archive"],
  ["POST", "/identities"],
  ["GET", "/identities/{id}"],
  ["GET", "/identities"],
  ["POST", "/identities/{id}"],
  ["DELETE", "/identities/{id}"],
  ["POST", "/channels"],
  ["GET", "/channels/{id}"],
  ["GET", "/channels"],
  ["POST", "/channels/{id}"],
  ["DELETE", "/channels/{id}"],
  ["POST", "/identities/{idn}/templates/{tmpl}/memory_stores"],
  ["GET", "/identities/{idn}/templates/{tmpl}/memory_stores"],
  ["DELETE", "/identities/{idn}/templates/{tmpl}/memory_stores/{sid}"],
  ["POST", "/sessions/{id}/archive"],
];

const message = (b: any) => b?.error?.message;

describe("provider_b cloud gateway routes every row of docs/wire/provider-b.md §3", () => {
  it.each([...SHARED, ...MANAGED_ONLY])("%s %s", async (method, path) => {
    await expectRouted(cloud, [method, path], message);
  });
});

describe("provider_b Forward gateway routes every row of docs/wire/provider-b.md §4", () => {
  it.each([...SHARED, ...FORWARD_ONLY])("%s %s", async (method, path) => {
    await expectRouted(fwd, [method, path], message);
  });
});
