import { readFile } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { CliError } from "./errors";

/** A JSON or YAML file read and parsed; `problem` is set (and `value` undefined) when it did not parse. */
interface ParsedDocument {
  /** Absolute path of the file. */
  path: string;
  value: unknown;
  problem?: { path: string; message: string };
}

/**
 * Reads `file` (relative to `cwd`) and parses it as JSON (`.json`), YAML (`.yaml`, `.yml`), or,
 * for any other name, JSON first then YAML. A file that cannot be read is a {@link CliError}
 * (`file_unreadable`, exit 2); a file that does not parse is returned with `problem`, its
 * location as `line L, column C`.
 */
export async function readDocument(file: string, cwd: string): Promise<ParsedDocument> {
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "cannot be read";
    throw new CliError({ code: "file_unreadable", message: `${file}: ${reason}`, cause: error });
  }
  const extension = extname(path).toLowerCase();
  if (extension === ".json") return parseJson(path, text);
  if (extension === ".yaml" || extension === ".yml") return parseYamlText(path, text);
  const asJson = parseJson(path, text);
  return asJson.problem ? parseYamlText(path, text) : asJson;
}

function parseJson(path: string, text: string): ParsedDocument {
  try {
    return { path, value: JSON.parse(text) };
  } catch (error) {
    return {
      path,
      value: undefined,
      problem: { path: "(file)", message: `not valid JSON: ${(error as Error).message}` },
    };
  }
}

function parseYamlText(path: string, text: string): ParsedDocument {
  try {
    return { path, value: parseYaml(text) };
  } catch (error) {
    const where =
      error instanceof YAMLParseError && error.linePos
        ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}`
        : "(file)";
    // The first line of the message, without the location it repeats at its end.
    const message =
      error instanceof Error
        ? error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")
        : String(error);
    return {
      path,
      value: undefined,
      problem: { path: where, message: `not valid YAML: ${message}` },
    };
  }
}
