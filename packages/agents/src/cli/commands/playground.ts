import { spawn } from "node:child_process";
import type { Command } from "commander";
import { CliError } from "../errors.js";
import { startPlayground } from "../playground/server.js";

interface PlaygroundOptions {
  file: string;
  port: string;
  open?: boolean;
  allowApply?: boolean;
}

/** The platform's own "open this URL" program. */
function opener(): [string, string[]] {
  if (process.platform === "darwin") return ["open", []];
  if (process.platform === "win32") return ["cmd", ["/c", "start", ""]];
  return ["xdg-open", []];
}

export function register(program: Command): void {
  program
    .command("playground")
    .description(
      "serve a local page with the project's graph, live findings, plans and chats with applied agents (127.0.0.1 only)",
    )
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .option("--port <PORT>", "port on 127.0.0.1 (default: a free one)", "0")
    .option("--open", "open the page in the default browser")
    .option("--allow-apply", "let the page apply the plan it shows (without it, the page shows the command)")
    .action(async (options: PlaygroundOptions) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(`--port must be a number from 0 to 65535, not "${options.port}"`);
      const playground = await startPlayground({
        file: options.file,
        port,
        allowApply: options.allowApply === true,
      });
      process.stdout.write(
        `Playground for ${options.file}${options.allowApply ? " (the page may apply plans)" : ""}: ${playground.url}\n(Ctrl-C stops it)\n`,
      );
      if (options.open) {
        const [command, args] = opener();
        const child = spawn(command, [...args, playground.url], { stdio: "ignore", detached: true });
        child.on("error", () => process.stderr.write(`could not start ${command}; open the URL above\n`));
        child.unref();
      }
      await new Promise<void>((done) => {
        const stop = () => void playground.close().then(done);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });
}
