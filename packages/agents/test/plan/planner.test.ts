import { describe, expect, it } from "vitest";
import { diffValues } from "../../src/plan/diff.js";
import { renderPlan } from "../../src/plan/render.js";
import { Harness, res } from "./harness.js";

const env = res("environments", "sandbox", { config: { type: "cloud" }, description: "one" });
const vault = res("vaults", "keys", { display_name: "Keys", token: "s3cret-token-value" });
const agent = (instructions: string, extra = {}) =>
  res(
    "agents",
    "writer",
    { model: "m-1", instructions, uses: ["environments/sandbox", "vaults/keys"], ...extra },
    [env.address, vault.address],
  );

describe("field-level diff", () => {
  it.each([
    ["unchanged nested objects", { a: { b: 1 } }, { a: { b: 1 } }, []],
    ["changed leaf", { a: { b: 1 } }, { a: { b: 2 } }, ["a.b"]],
    ["absent equals empty list", { a: [] }, {}, []],
    ["list element changed", { l: ["x", "y"] }, { l: ["x", "z"] }, ["l[1]"]],
    ["list length changed", { l: ["x"] }, { l: ["x", "z"] }, ["l"]],
    ["field added", {}, { d: "new" }, ["d"]],
    ["object appearing is listed leaf by leaf", {}, { a: { b: 1, c: [2] } }, ["a.b", "a.c[0]"]],
  ])("%s", (_label, before, after, paths) => {
    expect(diffValues(before, after).map((d) => d.path)).toEqual(paths);
  });
});

describe("plan", () => {
  it("creates in dependency order, then shows no changes with one read per resource", async () => {
    const h = new Harness();
    const desired = [agent("Write well."), vault, env];
    const first = await h.plan(desired);
    expect(first.actions.map((a) => [a.address, a.action])).toEqual([
      [env.address, "create"],
      [vault.address, "create"],
      [agent("").address, "create"],
    ]);
    const { result } = await h.apply(desired);
    expect(result.ok).toBe(true);
    h.remote.calls = [];
    const second = await h.plan(desired);
    expect(second.actions.every((a) => a.action === "noop")).toBe(true);
    expect(h.remote.calls.filter((c) => c.startsWith("read"))).toHaveLength(3);
    expect(h.remote.calls).toHaveLength(3);
    expect(renderPlan(second)).toContain("No changes.");
  });

  it("shows exactly the edited field, masks secrets and never prints them", async () => {
    const h = new Harness();
    await h.apply([env, vault, agent("Write well.")]);
    const edited = [
      env,
      { ...vault, spec: { ...vault.spec, token: "rotated-token-value" } },
      agent("Write better."),
    ];
    const plan = await h.plan(edited);
    const update = plan.actions.find((a) => a.address === agent("").address)!;
    expect(update.action).toBe("update");
    expect(update.changes).toEqual([
      {
        path: "instructions",
        before: "Write well.",
        after: "Write better.",
        sensitive: false,
        forcesReplacement: false,
        source: "config",
      },
    ]);
    const replace = plan.actions.find((a) => a.address === vault.address)!;
    expect(replace.action).toBe("replace");
    expect(replace.changes).toEqual([
      { path: "token", sensitive: true, forcesReplacement: false, source: "config" },
    ]);
    const text = renderPlan(plan);
    expect(text).toContain('~ instructions: "Write well." → "Write better."');
    expect(text).toContain("~ token: (sensitive)");
    expect(text + JSON.stringify(plan)).not.toMatch(/rotated-token-value|s3cret-token-value/);
  });

  it("updates a dependent whose dependency is replaced, so it references the new id", async () => {
    const h = new Harness();
    await h.apply([env, vault, agent("x")]);
    const rotated = { ...vault, spec: { ...vault.spec, token: "rotated-token-value" } };
    const plan = await h.plan([env, rotated, agent("x")]);
    const dependent = plan.actions.find((a) => a.kind === "agents")!;
    expect(dependent.action).toBe("update");
    expect(dependent.reason).toBe(`${vault.address} gets a new id, which this resource must reference`);
    const { result } = await h.apply([env, rotated, agent("x")]);
    expect(result.ok).toBe(true);
    expect(h.remote.calls.filter((c) => c.startsWith("update")).pop()).toBe(`update ${agent("").address}`);
  });

  it("names the field that forces replacement", async () => {
    const h = new Harness();
    await h.apply([env, vault, agent("x")]);
    const plan = await h.plan([env, vault, agent("x", { model: "m-2" })]);
    const action = plan.actions.find((a) => a.kind === "agents")!;
    expect(action.action).toBe("replace");
    expect(action.reason).toContain("model cannot be changed in place");
  });

  it("reports a change made behind our back as drift", async () => {
    const h = new Harness();
    await h.apply([env]);
    const remote = [...h.remote.objects.values()][0]!;
    remote.spec.description = "edited in the console";
    const plan = await h.plan([env]);
    expect(plan.actions[0]).toMatchObject({ action: "update", reason: expect.stringContaining("drift") });
    expect(plan.actions[0]!.changes[0]).toMatchObject({
      path: "description",
      before: "edited in the console",
      after: "one",
      source: "drift",
    });
  });

  it("recreates a resource deleted outside agents and deletes what is no longer declared", async () => {
    const h = new Harness();
    await h.apply([env, vault]);
    const vaultId = (await h.state()).resources[vault.address]!.id;
    h.remote.objects.delete(vaultId);
    const plan = await h.plan([vault]);
    expect(plan.actions.map((a) => [a.address, a.action])).toEqual([
      [vault.address, "create"],
      [env.address, "delete"],
    ]);
    expect(plan.actions[0]!.reason).toContain("deleted outside agents");
  });

  it("keeps a resource whose refresh failed and warns instead of deleting it", async () => {
    const h = new Harness();
    await h.apply([env]);
    const id = (await h.state()).resources[env.address]!.id;
    h.remote.failOn.add(`read ${id}`);
    const plan = await h.plan([env]);
    expect(plan.actions[0]!.action).toBe("noop");
    expect(plan.actions[0]!.warnings[0]).toContain("could not refresh");
    expect(plan.refresh.failed).toBe(1);
  });

  it("--provider leaves other providers' resources alone, deletes included", async () => {
    const h = new Harness();
    await h.apply([env]);
    const plan = await h.plan([], { providers: ["provider_d"] });
    expect(plan.actions).toEqual([]);
    const scoped = await h.plan([], { providers: ["provider_c"] });
    expect(scoped.actions.map((a) => a.action)).toEqual(["delete"]);
  });

  it("--provider needs no adapter for the providers outside its scope", async () => {
    const h = new Harness();
    const elsewhere = {
      ...res("environments", "d-env", { config: { type: "cloud" } }),
      provider: "provider_d" as const,
    };
    elsewhere.address = 'provider_d.environments["d-env"]';
    await expect(h.plan([env, elsewhere])).rejects.toThrow(/provider_d has no adapter/);
    const scoped = await h.plan([env, elsewhere], { providers: ["provider_c"] });
    expect(scoped.actions.map((a) => a.address)).toEqual([env.address]);
  });

  it("--target selects the target and what it depends on", async () => {
    const h = new Harness();
    const other = res("environments", "other", { config: { type: "cloud" } });
    const plan = await h.plan([env, vault, other, agent("x")], { targets: [vault.address] });
    expect(plan.actions.map((a) => a.address)).toEqual([vault.address]);
    const withDeps = await h.plan([env, vault, other, agent("x")], { targets: [agent("").address] });
    expect(withDeps.actions.map((a) => a.address).sort()).toEqual(
      [agent("").address, env.address, vault.address].sort(),
    );
  });
});

describe("external resources", () => {
  const external = {
    ...res("environments", "shared", { environment_id: "env-ext" }),
    external: { id: "env-ext", field: "environment_id" },
  };
  it("verifies and records, never creates, and blocks removing the id while tracked", async () => {
    const h = new Harness();
    h.remote.objects.set("env-ext", {
      id: "env-ext",
      kind: "environments",
      spec: {},
      owner: { project: "someone-else", resource: "x" },
    });
    const { plan } = await h.apply([external]);
    expect(plan.actions[0]).toMatchObject({ action: "read", remoteId: "env-ext" });
    expect(h.remote.calls.some((c) => c.startsWith("create"))).toBe(false);
    expect((await h.state()).resources[external.address]).toMatchObject({ id: "env-ext", external: true });
    const managed = res("environments", "shared", { config: { type: "cloud" } });
    await expect(h.plan([managed])).rejects.toThrow(/agents state rm 'provider_c.environments\["shared"\]'/);
    const destroy = await h.apply([external], { operation: "destroy" });
    expect(destroy.result.ok).toBe(true);
    expect(h.remote.objects.has("env-ext")).toBe(true);
    expect(h.remote.calls.some((c) => c.startsWith("remove"))).toBe(false);
  });
});
