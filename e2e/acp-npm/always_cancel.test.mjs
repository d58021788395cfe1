// The official ACP TypeScript SDK as the client: permission "always" (allow and reject) is
// remembered per tool for the session, and session/cancel while a tool runs ends the turn
// cancelled with the call failed. Run by TestACPTypeScriptSDKAlwaysAndCancel with
// PI_RPC_BIN, MOCK_URL and WORKSPACE set; every message is validated with the SDK's schemas.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { startAgent, stopAgent } from "./harness.mjs";

const ws = process.env.WORKSPACE;
const { child, wire, stream } = startAgent();
const updates = [];
const permissions = [];
let permissionAnswer = () => ({ outcome: { outcome: "cancelled" } });
let onUpdate = () => {};
const app = acp
  .client()
  .onNotification("session/update", ({ params }) => {
    updates.push(params.update);
    onUpdate(params.update);
  })
  .onRequest("session/request_permission", async ({ params }) => {
    permissions.push(params);
    return permissionAnswer(params);
  });
const select = (optionId) => () => ({ outcome: { outcome: "selected", optionId } });
const final = (id) => updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id && u.status).at(-1);
const read = (name) => readFileSync(join(ws, name), "utf8");

try {
  await app.connectWith(stream, async (agent) => {
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId: sid } = await agent.request("session/new", { cwd: ws, mcpServers: [] });
    const prompt = (text) => agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text }] });

    // allow_always: the first edit asks, the second does not; both are written.
    permissionAnswer = select("allow_always");
    assert.equal((await prompt("edit")).stopReason, "end_turn");
    assert.equal(permissions.length, 1);
    assert.equal(permissions[0].toolCall.toolCallId, "call_e1");
    assert.equal(read("a.txt"), "uno\n");
    permissionAnswer = () => { throw new Error("asked again after allow_always"); };
    assert.equal((await prompt("edit again")).stopReason, "end_turn");
    assert.equal(permissions.length, 1);
    assert.equal(read("a.txt"), "eins\n");
    assert.equal(final("call_e2").status, "completed");

    // reject_always: the first write asks and is refused, the second is refused unasked.
    permissionAnswer = select("reject_always");
    assert.equal((await prompt("write")).stopReason, "end_turn");
    assert.equal(permissions.length, 2);
    assert.equal(permissions[1].toolCall.toolCallId, "call_w1");
    assert.equal(final("call_w1").status, "failed");
    permissionAnswer = () => { throw new Error("asked again after reject_always"); };
    assert.equal((await prompt("write again")).stopReason, "end_turn");
    assert.equal(permissions.length, 2);
    assert.equal(final("call_w2").status, "failed");
    assert.ok(!existsSync(join(ws, "b.txt")) && !existsSync(join(ws, "c.txt")), "a refused write reached the disk");
    // Edits are still allowed: "always" is per tool.
    assert.equal(permissions.every((p) => p.toolCall.toolCallId !== "call_e2"), true);

    // Cancel while a tool runs: bash (allowed once) blocks; the cancel ends the turn
    // cancelled and the call failed, and the session takes the next prompt.
    permissionAnswer = select("allow_once");
    const running = new Promise((res) => {
      onUpdate = (u) => { if (u.toolCallId === "call_bash" && u.status === "in_progress") res(); };
    });
    const turn = prompt("run it");
    await running;
    await agent.notify("session/cancel", { sessionId: sid });
    assert.equal((await turn).stopReason, "cancelled");
    assert.equal(final("call_bash").status, "failed");
    assert.equal((await prompt("still there?")).stopReason, "end_turn");
    const last = updates.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");
    assert.ok(last.endsWith("after"), `the last answer: ${last}`);
  });
} catch (e) {
  console.error("FAILED:", e);
  console.error(wire.map((m) => JSON.stringify(m)).join("\n"));
  child.kill();
  process.exit(1);
}
await stopAgent(child);
console.log(`ok: ${wire.length} messages validated`);
