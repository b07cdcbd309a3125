import { describe, expect, it } from "vitest";
import { topologicalOrder } from "../../src/config/graph.js";
import { cfg, load, render } from "./helpers.js";

describe("the resource graph", () => {
  const text = cfg(
    ["provider_b", "provider_c"],
    [
      "identities:",
      "  desk: {provider: provider_b, external_id: d}",
      "tunnels:",
      "  office: {tunnel_id: tnl_1}",
      "environments:",
      "  dev: {config: {type: cloud}}",
      "  front-env: {provider: provider_b, config: {type: cloud}}",
      "vaults:",
      "  v: {}",
      "memory_stores:",
      "  m: {}",
      "agents:",
      "  worker: {model: m, instructions: w, environment: dev}",
      "  lead:",
      "    model: m",
      "    instructions: l",
      "    provider: provider_c",
      "    vault: v",
      "    memory_stores: [m]",
      "    multiagent: {agents: [worker]}",
      "  front:",
      "    provider: provider_b",
      "    model: m",
      "    instructions: f",
      "    tunnel: office",
      "    environment: front-env",
      "    delivery: {provider_b: {type: forward}}",
      "deployments:",
      "  nightly:",
      "    agent: lead",
      "    provider: provider_c",
      "    environment: dev",
      "    vaults: [v]",
      "    memory_stores: [m]",
      "    initial_events: [{type: user.message, content: Go.}]",
      "channels:",
      "  ding: {provider: provider_b, type: wechat, agent: front}",
    ].join("\n"),
    "  provider: all\n  identity: desk",
  );

  it("has one node per (kind, name, provider) with reference edges", () => {
    const result = load(text);
    expect(result.diagnostics, render(result)).toEqual([]);
    const graph = result.graph!;
    const deps = (address: string) => graph.byAddress.get(address)!.dependsOn.sort();
    expect(graph.byAddress.has('provider_b.agents["worker"]')).toBe(true);
    expect(graph.byAddress.has('provider_c.agents["worker"]')).toBe(true);
    expect(graph.byAddress.has('provider_c.tunnels["office"]')).toBe(false);
    expect(deps('provider_c.agents["lead"]')).toEqual(
      ['provider_c.agents["worker"]', 'provider_c.memory_stores["m"]', 'provider_c.vaults["v"]'].sort(),
    );
    expect(deps('provider_b.agents["front"]')).toEqual([
      'provider_b.environments["front-env"]',
      'provider_b.identities["desk"]',
      'provider_b.tunnels["office"]',
    ]);
    expect(deps('provider_c.deployments["nightly"]')).toEqual(
      [
        'provider_c.agents["lead"]',
        'provider_c.environments["dev"]',
        'provider_c.memory_stores["m"]',
        'provider_c.vaults["v"]',
      ].sort(),
    );
    expect(deps('provider_b.channels["ding"]')).toEqual([
      'provider_b.agents["front"]',
      'provider_b.identities["desk"]',
    ]);
    expect(graph.byAddress.get('provider_b.tunnels["office"]')!.external).toEqual({
      field: "tunnel_id",
      id: "tnl_1",
    });
    expect(graph.byAddress.get('provider_c.agents["lead"]')!.pos).toMatchObject({ line: 23, col: 3 });
  });

  it("orders every node after its dependencies", () => {
    const graph = load(text).graph!;
    const { order, cycle } = topologicalOrder(graph);
    expect(cycle).toEqual([]);
    expect(order).toHaveLength(graph.nodes.length);
    const index = new Map(order.map((node, i) => [node.address, i]));
    for (const node of order) {
      for (const dep of node.dependsOn) expect(index.get(dep)!).toBeLessThan(index.get(node.address)!);
    }
  });

  it("returns cycle members instead of dropping them", () => {
    const cyclic = load(
      cfg(
        ["provider_c"],
        "agents:\n  a: {model: m, instructions: x, multiagent: {agents: [b]}}\n  b: {model: m, instructions: x, multiagent: {agents: [a]}}",
      ),
    );
    const { order, cycle } = topologicalOrder(cyclic.graph!);
    expect(order).toEqual([]);
    expect(cycle.map((n) => n.name).sort()).toEqual(["a", "b"]);
  });
});
