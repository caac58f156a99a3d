import { parseArgs } from "node:util";
import { ConfigError } from "./errors";
import { startServer } from "./server";

// Entry of `pnpm start`: `main.ts [--config FILE] [--port N] [--host H]`. SIGHUP re-reads the
// config file.
const { values } = parseArgs({
  options: {
    config: { type: "string", short: "c" },
    port: { type: "string", short: "p" },
    host: { type: "string" },
  },
});
const port = values.port ?? process.env.PLANFIRST_PORT;
try {
  const server = await startServer({
    configPath: values.config ?? process.env.PLANFIRST_CONFIG,
    port: port === undefined ? undefined : Number(port),
    host: values.host,
  });
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  // The gateway logs what the reload did, or why it changed nothing.
  process.on("SIGHUP", () => void server.reload());
} catch (error) {
  console.error(ConfigError.isInstance(error) ? error.message : error);
  process.exit(1);
}
