#!/usr/bin/env node
'use strict';
// The pi-rpc command of the npm package (and the cliPath of pi's RpcClient, which runs
// `node <cliPath> --mode rpc ...`): it runs the native binary (binary.js) with the same
// arguments and inherited stdio, forwards SIGINT, SIGTERM and SIGHUP to it, and ends as it
// ended: with its exit code, or killed by the same signal.
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const { binaryPath, BinaryNotFoundError } = require('./binary.js');

let bin;
try {
  bin = binaryPath();
} catch (err) {
  if (!(err instanceof BinaryNotFoundError)) throw err;
  process.stderr.write(`pi-rpc: ${err.message}\n`);
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// A forwarded signal is the child's to act on: the launcher keeps running until the child
// exits, whatever the signal (a Ctrl-C reaches both, and pi-rpc ignores the duplicate).
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of FORWARDED) process.on(signal, forward);

child.on('error', (err) => {
  const from = process.env.PI_RPC_BINARY ? ' (PI_RPC_BINARY)' : '';
  process.stderr.write(`pi-rpc: cannot run ${bin}${from}: ${err.message}\n`);
  process.exit(1);
});

child.on('exit', (code, signal) => {
  if (signal === null) {
    process.exit(code ?? 1);
  }
  // Die of the same signal, so that our parent sees what it would have seen without the
  // launcher. A signal that does not kill Node (it ignores SIGPIPE; SIGUSR1 starts its
  // inspector) leaves the exit code 128+n, as a shell reports a signal death.
  const code128 = 128 + (constants.signals[signal] ?? 0);
  if (signal === 'SIGUSR1') process.exit(code128);
  for (const s of FORWARDED) process.removeListener(s, forward);
  process.exitCode = code128;
  process.kill(process.pid, signal);
});
