import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseEnv } from "node:util";
import type { Command } from "commander";
import {
  DEFAULT_STARTER_PROVIDER,
  isPlainName,
  isStarterProvider,
  jsonSchema,
  PROVIDER_NAMES,
  starterFiles,
} from "../../index.js";
import { CliError } from "../errors.js";

interface InitOptions {
  provider?: string;
  agent?: string;
  dir?: string;
}

// The state and what stands beside it (its lock, journal and backup, which hold the same state):
// none belongs in git.
const IGNORED = ["agents.state.json", "agents.state.json.*", ".env"];

export function register(program: Command): void {
  program
    .command("init")
    .description("write a starter agents.yaml, .env.example and .gitignore entries")
    .option("--provider <NAME>", `provider of the starter (${PROVIDER_NAMES.join(", ")})`)
    .option("--agent <NAME>", "name of the starter agent", undefined)
    .option("--dir <DIR>", "folder to write into", ".")
    .action(async (options: InitOptions) => {
      const dir = resolve(options.dir ?? ".");
      const target = join(dir, "agents.yaml");
      if (existsSync(target)) {
        throw new CliError(`${target} already exists; refusing to overwrite it (remove it or use --dir)`);
      }
      const answers = await askMissing(options);
      if (!isStarterProvider(answers.provider)) {
        throw new CliError(
          `unknown provider "${answers.provider}"; choose one of ${PROVIDER_NAMES.join(", ")}`,
        );
      }
      if (!isPlainName(answers.agent)) {
        throw new CliError(
          `agent name "${answers.agent}" must start with a letter and use letters, digits, _, - or .`,
        );
      }
      const { yaml, envExample } = starterFiles(answers.provider, answers.agent);
      mkdirSync(dir, { recursive: true });
      writeFileSync(target, yaml, { flag: "wx" });
      const written = [target];
      const envPath = join(dir, ".env.example");
      if (!existsSync(envPath)) {
        writeFileSync(envPath, envExample);
        written.push(envPath);
      } else if (appendMissingVariables(envPath, envExample).length > 0) {
        written.push(`${envPath} (appended)`);
      }
      const schemaPath = join(dir, "agents.schema.json");
      writeFileSync(schemaPath, `${JSON.stringify(jsonSchema(), null, 2)}\n`);
      written.push(schemaPath);
      const added = appendGitignore(join(dir, ".gitignore"));
      for (const path of written) process.stdout.write(`wrote ${path}\n`);
      if (added.length > 0) process.stdout.write(`added to .gitignore: ${added.join(", ")}\n`);
      process.stdout.write("next: copy .env.example to .env, fill in the keys, then run `agents validate`\n");
    });
}

async function askMissing(options: InitOptions): Promise<{ provider: string; agent: string }> {
  let provider = options.provider;
  let agent = options.agent;
  if ((provider === undefined || agent === undefined) && process.stdin.isTTY && process.stdout.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    // Lines are read through the iterator so that answers typed ahead are queued, not lost;
    // end of input (Ctrl+D) accepts the defaults.
    const lines = rl[Symbol.asyncIterator]();
    const ask = async (question: string): Promise<string | undefined> => {
      rl.setPrompt(question);
      rl.prompt();
      const next = await lines.next();
      return next.done ? undefined : next.value.trim() || undefined;
    };
    try {
      if (provider === undefined) {
        provider = await ask(`provider (${PROVIDER_NAMES.join(", ")}) [${DEFAULT_STARTER_PROVIDER}]: `);
      }
      if (agent === undefined) agent = await ask("agent name [assistant]: ");
    } finally {
      rl.close();
    }
  }
  return { provider: provider ?? DEFAULT_STARTER_PROVIDER, agent: agent ?? "assistant" };
}

/** Append the entries that are missing; existing lines (ignoring surrounding spaces) are kept once. */
function appendGitignore(path: string): string[] {
  const existing = existsSync(path) ? readFileSync(path, "utf8") : "";
  const lines = new Set(existing.split(/\r?\n/).map((line) => line.trim()));
  const missing = IGNORED.filter((entry) => !lines.has(entry) && !lines.has(`/${entry}`));
  if (missing.length === 0) return [];
  const prefix = existing.length > 0 && !existing.endsWith("\n") ? "\n" : "";
  writeFileSync(path, `${existing}${prefix}${missing.join("\n")}\n`);
  return missing;
}

/** Add the starter's variables that an existing .env.example does not mention yet. */
function appendMissingVariables(path: string, example: string): string[] {
  const existing = readFileSync(path, "utf8");
  const known = new Set(Object.keys(parseEnv(existing)));
  const missing = example
    .split("\n")
    .filter((line) => /^[A-Za-z_]\w*=/.test(line) && !known.has(line.split("=")[0]!));
  if (missing.length === 0) return [];
  const prefix = existing.length > 0 && !existing.endsWith("\n") ? "\n" : "";
  writeFileSync(path, `${existing}${prefix}${missing.join("\n")}\n`);
  return missing;
}
