// The official ACP TypeScript SDK as the client of pi-rpc --protocol acp. The Go test
// TestACPTypeScriptSDK starts the mock model server and runs this with PI_RPC_BIN, MOCK_URL
// and WORKSPACE set. Every message the agent writes is checked against the SDK's own zod
// schemas; each step's results are asserted here. Exit status 0 means every check passed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { startAgent } from "./harness.mjs";

const ws = process.env.WORKSPACE;
const { child, wire, stream } = startAgent();

const updates = new Map(); // sessionId -> updates
let permissionAnswer = () => ({ outcome: { outcome: "cancelled" } });
const permissions = [];
const app = acp
  .client()
  .onNotification("session/update", ({ params }) => {
    if (!updates.has(params.sessionId)) updates.set(params.sessionId, []);
    updates.get(params.sessionId).push(params.update);
  })
  .onRequest("session/request_permission", async ({ params }) => {
    permissions.push(params);
    return permissionAnswer(params);
  });

const text = (sid) => (updates.get(sid) ?? []).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join("");

try {
await app.connectWith(stream, async (agent) => {
  const init = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  assert.equal(init.protocolVersion, 1);
  assert.equal(init.agentCapabilities.loadSession, true);
  assert.equal(init.agentInfo.name, "pi-rpc");

  const { sessionId: sid } = await agent.request("session/new", { cwd: ws, mcpServers: [] });
  // 1. text, image and an embedded resource.
  let r = await agent.request("session/prompt", { sessionId: sid, prompt: [
    { type: "text", text: "hello" },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "resource", resource: { uri: "file:///notes.md", text: "context text" } },
  ] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(text(sid), "Hi there");

  // 2. a tool loop: read, then an answer.
  updates.set(sid, []);
  r = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "read it" }] });
  assert.equal(r.stopReason, "end_turn");
  const calls = updates.get(sid).filter((u) => u.sessionUpdate === "tool_call");
  assert.equal(calls[0].kind, "read");
  const done = updates.get(sid).find((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
  assert.equal(done.toolCallId, "call_read");
  assert.match(done.content[0].content.text, /line one/);
  assert.equal(text(sid), "It says line one.");

  // 3. an edit allowed: the permission request carries the diff; the file changes.
  permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "allow_once" } });
  r = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "edit it" }] });
  assert.equal(r.stopReason, "end_turn");
  const asked = permissions.at(-1);
  assert.deepEqual(asked.options.map((o) => o.kind), ["allow_once", "allow_always", "reject_once", "reject_always"]);
  assert.equal(asked.toolCall.content[0].type, "diff");
  assert.equal(asked.toolCall.content[0].path, join(ws, "a.txt"));
  assert.equal(asked.toolCall.content[0].newText, "line uno\n");
  assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "line uno\n");

  // 4. an edit rejected: the file stays.
  permissionAnswer = () => ({ outcome: { outcome: "selected", optionId: "reject_once" } });
  r = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "edit again" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "line uno\n");

  // 5. cancel during a permission request: the turn ends cancelled, nothing written.
  permissionAnswer = async () => {
    await agent.notify("session/cancel", { sessionId: sid });
    return { outcome: { outcome: "cancelled" } };
  };
  r = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "edit once more" }] });
  assert.equal(r.stopReason, "cancelled");
  assert.equal(readFileSync(join(ws, "a.txt"), "utf8"), "line uno\n");

  // 6. two sessions at once, and a queued second prompt: every prompt answered.
  const { sessionId: other } = await agent.request("session/new", { cwd: ws, mcpServers: [] });
  const results = await Promise.all([
    agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "a" }] }),
    agent.request("session/prompt", { sessionId: other, prompt: [{ type: "text", text: "b" }] }),
    agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "a2" }] }),
  ]);
  assert.deepEqual(results.map((x) => x.stopReason), ["end_turn", "end_turn", "end_turn"]);

  // Bad input through the SDK: an unknown session.
  await assert.rejects(agent.request("session/prompt", { sessionId: "nope", prompt: [{ type: "text", text: "x" }] }), (e) => e.code === -32002);
  await agent.request("session/close", { sessionId: other });
});
} catch (e) {
  console.error("FAILED:", e);
  console.error(wire.map((m) => JSON.stringify(m)).join("\n"));
  child.kill();
  process.exit(1);
}

// Ordering on the wire: no update of a session before its session/new response, and none
// after the last prompt response of a session that then goes idle.
const opened = new Set();
for (const m of wire) {
  if (m.result?.sessionId) opened.add(m.result.sessionId);
  if (m.method === "session/update") assert.ok(opened.has(m.params.sessionId), "update before session/new response");
}
child.stdin.end();
await new Promise((res) => child.on("exit", res));
console.log(`ok: ${wire.length} messages validated`);
