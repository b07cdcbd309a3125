import { describe, it } from "vitest";
import { expectRouted, type Row } from "../endpoint-table.js";
import { useProviderA } from "./setup.js";

const t = useProviderA();

// docs/wire/provider-a.md §3, one row per endpoint.
const ROWS: Row[] = [
  ["POST", "/environments"],
  ["GET", "/environments/{id}"],
  ["GET", "/environments"],
  ["POST", "/environments/{id}"],
  ["DELETE", "/environments/{id}"],
  ["POST", "/vaults"],
  ["GET", "/vaults/{id}"],
  ["GET", "/vaults"],
  ["POST", "/vaults/{id}"],
  ["POST", "/vaults/{id}/archive"],
  ["DELETE", "/vaults/{id}"],
  ["POST", "/vaults/{vid}/credentials"],
  ["GET", "/vaults/{vid}/credentials/{cid}"],
  ["GET", "/vaults/{vid}/credentials"],
  ["POST", "/vaults/{vid}/credentials/{cid}"],
  ["POST", "/vaults/{vid}/credentials/{cid}/archive"],
  ["DELETE", "/vaults/{vid}/credentials/{cid}"],
  ["POST", "/files"],
  ["GET", "/files/{id}"],
  ["GET", "/files"],
  ["DELETE", "/files/{id}"],
  ["POST", "/skills"],
  ["POST", "/skills/{id}/versions"],
  ["GET", "/skills/{id}"],
  ["GET", "/skills"],
  ["GET", "/skills/{id}/versions"],
  ["GET", "/skills/{id}/versions/{version}"],
  ["DELETE", "/skills/{id}"],
  ["POST", "/agents"],
  ["GET", "/agents/{id}"],
  ["GET", "/agents"],
  ["POST", "/agents/{id}"],
  ["POST", "/agents/{id}/archive"],
  ["POST", "/deployments"],
  ["GET", "/deployments/{id}"],
  ["GET", "/deployments"],
  ["POST", "/deployments/{id}"],
  ["POST", "/deployments/{id}/archive"],
  ["POST", "/deployments/{id}/run"],
  ["POST", "/deployments/{id}/pause"],
  ["POST", "/deployments/{id}/unpause"],
  ["POST", "/sessions"],
  ["GET", "/sessions/{id}"],
  ["GET", "/sessions"],
  ["DELETE", "/sessions/{id}"],
  ["POST", "/sessions/{id}/events"],
  ["GET", "/sessions/{id}/events"],
  ["GET", "/sessions/{id}/events/stream"],
];

describe("provider_a routes every row of docs/wire/provider-a.md §3", () => {
  it.each(ROWS)("%s %s", async (method, path) => {
    await expectRouted(t.api, [method, path], (b) => b?.error?.message);
  });
});
