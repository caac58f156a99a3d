import { packageBuild } from "@planfirst/build-config/tsup";
import { defineConfig } from "tsup";

// The SQLite store's commit thread is started from a file of its own, emitted beside the code
// that starts it in each format; `shims` gives the CJS build the `import.meta.url` it resolves
// that file from.
export default defineConfig({
  ...packageBuild(["src/index.ts", "src/sqlite.ts", "src/redis.ts", "src/sqlite-worker.ts"]),
  shims: true,
});
