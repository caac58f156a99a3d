import type { Command } from "commander";
import type { CliContext } from "../context";
import { registerCatalogShowCommand } from "./catalog-show";
import { registerCatalogValidateCommand } from "./catalog-validate";

/** Registers `planfirst catalog` and its subcommands `show` and `validate`. */
export function registerCatalogCommand(program: Command, context: CliContext): void {
  const catalog = program
    .command("catalog")
    .description("browse the bundled billing catalog, or validate an operator catalog file");
  registerCatalogShowCommand(catalog, context);
  registerCatalogValidateCommand(catalog, context);
}
