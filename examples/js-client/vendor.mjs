// Bundles @msgpack/msgpack into the single ES module the sidecar serves (development step;
// its output is committed so running the sidecar needs no Node at all). `npm run vendor`.
import { build } from "esbuild";
import { readFileSync } from "node:fs";

const { version } = JSON.parse(readFileSync("node_modules/@msgpack/msgpack/package.json", "utf8"));
await build({
  entryPoints: ["node_modules/@msgpack/msgpack/dist.esm/index.mjs"],
  bundle: true,
  format: "esm",
  minify: true,
  legalComments: "inline",
  banner: { js: `// @msgpack/msgpack ${version} (ISC licence, see msgpack.LICENSE), bundled into one ES module\n`
                + "// so the sidecar can serve it with no CDN. Rebuild: `npm run vendor` in examples/js-client." },
  outfile: "../../sidecar/server/web/static/vendor/msgpack.mjs",
});
