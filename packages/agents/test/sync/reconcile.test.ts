// The pure parts of sync: which places of a declaration change, how secrets are carried, how
// the YAML document is edited, and the unified diff `--dry-run` prints.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unifiedDiff } from "../../src/sync/line-diff.js";
import { type ReconcileInput, reconcile } from "../../src/sync/reconcile.js";
import { applyEdits, parseForEdit, printDocument, rawValue } from "../../src/sync/yaml-edit.js";

const SENSITIVE = ["credentials.*.access_token", "credentials.*.secret_value"];

function syncText(
  text: string,
  at: string[],
  declared: Record<string, unknown>,
  remote: Record<string, unknown>,
) {
  const doc = parseForEdit(text);
  const input: ReconcileInput = {
    at,
    declared,
    remote,
    raw: rawValue(doc, at) as Record<string, unknown> | undefined,
    sensitive: SENSITIVE,
    provider: "provider_c",
  };
  const result = reconcile(input);
  applyEdits(doc, result.edits);
  return { text: result.edits.length ? printDocument(doc) : text, ...result };
}

describe("reconcile: what sync writes into one declaration", () => {
  it("leaves equal values (and their ${VAR} and comments) untouched", () => {
    const text = "agents:\n  a:\n    instructions: ${PROMPT} # from .env\n    model: m1\n";
    const out = syncText(
      text,
      ["agents", "a"],
      { instructions: "hi", model: "m1" },
      { instructions: "hi", model: "m1" },
    );
    expect(out.edits).toEqual([]);
    expect(out.text).toBe(text);
  });

  it("edits a nested leaf only, keeping the flow list and comment beside it", () => {
    const text =
      "environments:\n  e:\n    config:\n      type: cloud # cloud only\n      networking:\n        type: limited\n        allowed_hosts: [a.example] # keep\n";
    const out = syncText(
      text,
      ["environments", "e"],
      { config: { type: "cloud", networking: { type: "limited", allowed_hosts: ["a.example"] } } },
      {
        config: { type: "cloud", networking: { type: "limited", allowed_hosts: ["a.example", "b.example"] } },
      },
    );
    expect(out.text).toBe(text.replace("[a.example] # keep", "[a.example, b.example] # keep"));
  });

  it("a per-provider model map keeps the other providers' entries", () => {
    const text = "agents:\n  a:\n    model:\n      provider_c: old\n      provider_d: d-model\n";
    const out = syncText(text, ["agents", "a"], { model: "old" }, { model: "new" });
    expect(out.text).toBe(text.replace("provider_c: old", "provider_c: new"));
  });

  it("a value cleared remotely is removed from the file", () => {
    const text = "agents:\n  a:\n    description: gone soon\n    model: m\n";
    const out = syncText(
      text,
      ["agents", "a"],
      { description: "gone soon", model: "m" },
      { description: null, model: "m" },
    );
    expect(out.text).toBe("agents:\n  a:\n    model: m\n");
  });

  it("keeps an existing secret's ${VAR}; a new credential gets a placeholder, never a value", () => {
    const text =
      "vaults:\n  v:\n    credentials:\n      - name: gh # main token\n        type: static_bearer\n        mcp_server_url: https://x\n        access_token: ${GH_TOKEN}\n";
    const declared = {
      credentials: [
        { name: "gh", type: "static_bearer", mcp_server_url: "https://x", access_token: "resolved-secret" },
      ],
    };
    const remote = {
      credentials: [
        { name: "gh", type: "static_bearer", mcp_server_url: "https://y" },
        { name: "env", type: "environment_variable", secret_name: "K" },
      ],
    };
    const out = syncText(text, ["vaults", "v"], declared, remote);
    expect(out.variables).toEqual(["VAULTS_V_CREDENTIALS_ENV_SECRET_VALUE"]);
    expect(out.text).toBe(
      "vaults:\n  v:\n    credentials:\n      - name: gh # main token\n        type: static_bearer\n        mcp_server_url: https://y\n        access_token: ${GH_TOKEN}\n" +
        "      - name: env\n        type: environment_variable\n        secret_name: K\n        secret_value: ${VAULTS_V_CREDENTIALS_ENV_SECRET_VALUE}\n",
    );
    expect(out.text).not.toContain("resolved-secret");
  });

  it("keeps explicit host lists and injection booleans a canonical remote form leaves out", () => {
    const text =
      "vaults:\n  v:\n    credentials:\n      - name: env\n        type: environment_variable\n        secret_name: K\n        secret_value: ${K}\n        networking:\n          type: limited\n          allowed_hosts: [api.example.com]\n        injection_location: {header: true, body: false}\n";
    const declared = {
      credentials: [
        {
          name: "env",
          type: "environment_variable",
          secret_name: "K",
          secret_value: "v",
          networking: { type: "limited", allowed_hosts: ["api.example.com"] },
          injection_location: { header: true, body: false },
        },
      ],
    };
    // The remote renamed the secret; its canonical form omits the default injection location.
    const remote = {
      credentials: [
        {
          name: "env",
          type: "environment_variable",
          secret_name: "K2",
          networking: { type: "limited", allowed_hosts: ["api.example.com"] },
        },
      ],
    };
    const out = syncText(text, ["vaults", "v"], declared, remote);
    expect(out.text).toBe(text.replace("secret_name: K\n", "secret_name: K2\n"));
  });

  it("a credential removed remotely is removed from the list, the others untouched", () => {
    const text =
      "vaults:\n  v:\n    credentials:\n      - name: a\n        type: static_bearer\n        mcp_server_url: https://a\n        access_token: ${A}\n      - name: b # second\n        type: static_bearer\n        mcp_server_url: https://b\n        access_token: ${B}\n";
    const cred = (n: string) => ({ name: n, type: "static_bearer", mcp_server_url: `https://${n}` });
    const out = syncText(
      text,
      ["vaults", "v"],
      {
        credentials: [
          { ...cred("a"), access_token: "1" },
          { ...cred("b"), access_token: "2" },
        ],
      },
      { credentials: [cred("b")] },
    );
    expect(out.text).toBe(
      "vaults:\n  v:\n    credentials:\n      - name: b # second\n        type: static_bearer\n        mcp_server_url: https://b\n        access_token: ${B}\n",
    );
  });

  it("a new declaration is pinned to its provider, empty remote values left out", () => {
    const out = syncText("agents:\n  a:\n    model: m\n", ["agents", "b"], undefined as never, {
      model: "m2",
      instructions: "Do it.",
      tools: { builtin: [] },
      metadata: { "agents.project": "p", team: "x" },
    });
    expect(out.text).toBe(
      "agents:\n  a:\n    model: m\n  b:\n    provider: provider_c\n    model: m2\n    instructions: Do it.\n    metadata:\n      team: x\n",
    );
  });
});

describe("printing the edited document", () => {
  it("keeps a comment on a key line above a block map or list where it was written", () => {
    const text =
      "vaults:\n  v0: # vault 0\n    # more\n    provider: c\n  v1:\n    # own line\n    provider: d\nlist: # the list\n  - a\n";
    const doc = parseForEdit(text);
    expect(printDocument(doc)).toBe(text);
    applyEdits(doc, [{ path: ["vaults", "v0", "provider"], op: "set", value: "e" }]);
    expect(printDocument(doc)).toBe(text.replace("provider: c", "provider: e"));
  });

  it("reprints every fixture of the repository byte for byte when nothing is edited", () => {
    for (const file of fixtures()) {
      const text = readFileSync(file, "utf8");
      expect(printDocument(parseForEdit(text)), file).toBe(text);
    }
  });
});

function fixtures(): string[] {
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const dirs = ["examples", "packages/agents/test/e2e/fixtures", "packages/agents/test/sync/fixtures"];
  const out: string[] = [];
  for (const dir of dirs) {
    const walk = (d: string) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        const path = join(d, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (/agents.*\.ya?ml$/.test(entry.name)) out.push(path);
      }
    };
    if (existsSync(join(root, dir))) walk(join(root, dir));
  }
  expect(out.length).toBeGreaterThan(3);
  return out;
}

describe("unifiedDiff", () => {
  it("is empty for equal texts", () => {
    expect(unifiedDiff("a\n", "a\n", "a", "b")).toBe("");
  });

  it("prints hunks with three lines of context and correct ranges", () => {
    const lines = Array.from({ length: 20 }, (_, i) => String(i + 1));
    const before = `${lines.join("\n")}\n`;
    const after = `${lines.map((l) => (l === "5" ? "five" : l)).join("\n")}\n21\n`;
    expect(unifiedDiff(before, after, "a/f", "b/f")).toBe(
      "--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -18,3 +18,4 @@\n 18\n 19\n 20\n+21\n",
    );
  });

  it("merges changes closer than twice the context into one hunk", () => {
    const before = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
    const after = "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n11\n";
    expect(unifiedDiff(before, after, "a/f", "b/f")).toBe(
      "--- a/f\n+++ b/f\n@@ -2,9 +2,10 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n+11\n",
    );
  });

  it("numbers an insertion into an empty file from zero", () => {
    expect(unifiedDiff("", "x\n", "a", "b")).toBe("--- a\n+++ b\n@@ -0,0 +1,1 @@\n+x\n");
  });
});
