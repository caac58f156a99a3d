import { packageBuild } from "@planfirst/build-config/tsup";
import { defineConfig } from "tsup";

// `shims` gives the CJS build the `import.meta.url` that the request log's writing thread
// resolves its SQLite driver from (see src/observability/request-log/log-writer.ts).
export default defineConfig({ ...packageBuild(["src/index.ts"]), shims: true });
