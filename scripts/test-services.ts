import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, inject, it } from "vitest";

/**
 * The Debian packages some tests need, in one list. `npm test` installs the missing ones when it
 * can (root with apt-get); otherwise the tests that need them are not run and are named in one
 * line at the end of the run. In CI (CI=true) a missing service fails its tests instead.
 *
 * A test file declares what it needs with `describeWith("nginx")("name", () => { ... })`; such a
 * file belongs to the e2e tier (name it *.e2e.test.ts), whose global set-up does the installing.
 * To add a service: one entry here, and `describeWith` in the tests that use it.
 */
export const TEST_SERVICES = {
  nginx: {
    debian: "nginx",
    paths: ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx", "/usr/local/bin/nginx"],
  },
  "redis-server": {
    debian: "redis-server",
    paths: ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"],
  },
  chromium: {
    debian: "chromium",
    paths: ["/usr/bin/chromium"],
  },
  postgresql: {
    debian: "postgresql",
    paths: ["/usr/lib/postgresql/*/bin/postgres", "/usr/local/pgsql/bin/postgres"],
  },
  // Debian's python-gitlab, run with Debian's own interpreter (/usr/bin/python3), not one on PATH
  "python3-gitlab": {
    debian: "python3-gitlab",
    paths: ["/usr/lib/python3/dist-packages/gitlab/__init__.py"],
  },
} satisfies Record<string, { debian: string; paths: string[] }>;

export type TestService = keyof typeof TEST_SERVICES;

/** Expands one `*` path segment (e.g. /usr/lib/postgresql/*\/bin/postgres), newest name last. */
function expand(pattern: string): string[] {
  const star = pattern.indexOf("*");
  if (star < 0) return [pattern];
  const parent = dirname(pattern.slice(0, star + 1));
  const rest = pattern
    .slice(parent.length + 1)
    .split("/")
    .slice(1)
    .join("/");
  let names: string[] = [];
  try {
    names = readdirSync(parent).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  } catch {
    return [];
  }
  return names.reverse().map((n) => join(parent, n, rest));
}

/** The executable of a service, or undefined when it is not installed. */
export function servicePath(name: TestService): string | undefined {
  // lets a developer (and the test of this mechanism) see the run a machine without it gets
  if (process.env.AGENTS_TEST_PRETEND_MISSING?.split(",").includes(name)) return undefined;
  for (const p of TEST_SERVICES[name].paths.flatMap(expand)) if (existsSync(p)) return p;
  return undefined;
}

export function missingServices(): TestService[] {
  return (Object.keys(TEST_SERVICES) as TestService[]).filter((s) => servicePath(s) === undefined);
}

/** Why missing services cannot be installed here, or undefined when they can. */
export function cannotInstallReason(): string | undefined {
  if (process.env.AGENTS_TEST_INSTALL === "0") return "AGENTS_TEST_INSTALL=0";
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return "not root";
  if (!existsSync("/usr/bin/apt-get")) return "no apt-get";
  return undefined;
}

/** Installs the missing services' Debian packages; returns what is still missing afterwards. */
export function installMissingServices(log: (line: string) => void): TestService[] {
  const missing = missingServices();
  if (missing.length === 0 || cannotInstallReason()) return missing;
  const packages = missing.map((s) => TEST_SERVICES[s].debian);
  log(`test set-up: installing Debian packages the tests need: ${packages.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  try {
    execFileSync("apt-get", ["update", "-qq"], { env, stdio: "ignore", timeout: 300_000 });
    execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 600_000,
    });
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim().split("\n").pop();
    log(`test set-up: apt-get failed${stderr ? `: ${stderr}` : ""}`);
  }
  return missingServices();
}

declare module "vitest" {
  export interface ProvidedContext {
    /** File where workers append the tests they could not run; the global teardown prints it. */
    notRunFile: string;
  }
}

/**
 * `describe` for tests that need a service. Installed: an ordinary describe. Missing outside CI:
 * the suite is not run and is named in the run's closing line. Missing in CI: it fails.
 */
export function describeWith(service: TestService): (name: string, fn: () => void) => void {
  return (name, fn) => {
    if (servicePath(service)) return describe(name, fn);
    const debian = TEST_SERVICES[service].debian;
    if (process.env.CI === "true" || process.env.CI === "1") {
      return describe(name, () => {
        it(`needs ${service}`, () => {
          throw new Error(`${service} is not installed (Debian package ${debian}); CI must install it`);
        });
      });
    }
    appendFileSync(inject("notRunFile"), `${JSON.stringify({ service, name })}\n`);
    return describe.skipIf(true)(name, fn);
  };
}
