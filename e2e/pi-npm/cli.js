#!/usr/bin/env node
// The cliPath pi's RpcClient runs as `node cli.js --mode rpc ...`: it runs the pi-rpc binary
// named by PI_RPC_BINARY with the same arguments and inherited stdio, forwards signals, and
// exits as the binary did.
import { spawn } from "node:child_process";
import { constants } from "node:os";

const bin = process.env.PI_RPC_BINARY;
if (!bin) {
  console.error("cli.js: set PI_RPC_BINARY to the pi-rpc binary");
  process.exit(1);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("error", (err) => {
  console.error(`cli.js: ${bin}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 1));
});
