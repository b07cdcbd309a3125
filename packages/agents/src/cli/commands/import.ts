import type { Command } from "commander";
import { importResource, loadProject } from "../../index.js";
import { engineOptions, noticeToStderr, redactingErrors } from "../engine-output.js";

export function register(program: Command): void {
  program
    .command("import <ADDRESS> <REMOTE_ID>")
    .description("adopt an existing remote resource for a declared address (reads it, records it in state)")
    .option("-f, --file <FILE>", "configuration file", "agents.yaml")
    .action(async (address: string, remoteId: string, options: { file: string }) => {
      const project = await loadProject({ file: options.file });
      const entry = await redactingErrors(project.secrets, () =>
        importResource(
          { ...engineOptions(project, "agents import"), onNotice: noticeToStderr },
          address,
          remoteId,
        ),
      );
      process.stdout.write(
        `Imported ${address} as ${entry.id}. Run agents plan to see how it differs from the file.\n`,
      );
    });
}
