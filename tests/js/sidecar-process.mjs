// Starts a real sidecar (`python -m sidecar serve`) for the Node tests and stops it.
// The Python comes from $SIDECAR_PYTHON (pytest sets it), else the repo's .venv-test or .venv, else python3.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const GM_TOKEN = "node-gm-token";
export const PLAYER_TOKEN = "node-player-token";

function python() {
  if (process.env.SIDECAR_PYTHON) return process.env.SIDECAR_PYTHON;
  for (const name of [".venv-test", ".venv"]) {
    const venv = join(ROOT, name, "bin", "python");
    if (existsSync(venv)) return venv;
  }
  return "python3";
}

/**
 * Start `sidecar serve` on a loopback port (0: any free one); resolves once it prints its
 * WebSocket URL. `stop()` sends SIGTERM and waits for the exit.
 */
export function startSidecar({ port = 0, db = ":memory:", extra = [] } = {}) {
  const args = ["-m", "sidecar", "serve", "--host", "127.0.0.1", "--port", String(port),
    "--db", db, "--gm-token", GM_TOKEN, "--player-token", PLAYER_TOKEN,
    "--rate-limit", "0", "--log-level", "warning",
    // Secure dice pinned (the default is provable): the tests count events from seq 1,
    // and a provable table's first event is its epoch's start. A later --dice wins.
    "--dice", "secure", ...extra];
  const child = spawn(python(), args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`sidecar did not start within 20 s:\n${output}`));
    }, 20000);
    const exited = new Promise((done) => child.on("exit", done));
    const onData = (chunk) => {
      output += chunk;
      const match = output.match(/WebSocket (ws:\/\/\S+)/);
      if (!match) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      child.stdout.resume();
      const url = match[1];
      resolve({
        url,
        http: url.replace("ws://", "http://").replace(/\/ws$/, ""),
        port: Number(new URL(url.replace("ws://", "http://")).port),
        output: () => output,
        async stop() {
          if (child.exitCode === null) child.kill("SIGTERM");
          await exited;
        },
      });
    };
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", onData);
    child.stderr.on("data", (chunk) => { output += chunk; });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`sidecar exited (${code}) before listening:\n${output}`));
    });
  });
}
