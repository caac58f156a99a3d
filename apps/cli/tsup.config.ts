import { packageBuild } from "@planfirst/build-config/tsup";
import { defineConfig } from "tsup";

export default defineConfig([
  packageBuild(["src/index.ts"]),
  {
    // The command is an ES module only; the shebang in src/bin.ts is kept and made executable.
    entry: ["src/bin.ts"],
    format: ["esm"],
    sourcemap: true,
    target: "node20",
  },
]);
