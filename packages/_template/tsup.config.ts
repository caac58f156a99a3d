import { packageBuild } from "@planfirst/build-config/tsup";
import { defineConfig } from "tsup";

export default defineConfig(packageBuild(["src/index.ts"]));
