// The official ACP TypeScript SDK as the client of pi-rpc --protocol acp. The Go test
// TestACPTypeScriptSDK starts the mock model server and runs this with PI_RPC_BIN, MOCK_URL
// and WORKSPACE set. Every message the agent writes is checked against the SDK's own zod
// schemas; each step's results are asserted here. Exit status 0 means every check passed.
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const ws = process.env.WORKSPACE;
const child = spawn(process.env.PI_RPC_BIN, ["--protocol", "acp", "--provider", "openai", "--base-url", process.env.MOCK_URL, "--model", "gpt-4.1"], {
  stdio: ["pipe", "pipe", "inherit"],
  env: { PATH: process.env.PATH, HOME: process.env.HOME, PI_RPC_HOME: process.env.HOME, OPENAI_API_KEY: "test" },
});

// Every line the agent writes, validated: notifications and requests by method, responses
// by the method of the request they answer (recorded as the client sends it).
const sent = new Map();
const wire = [];
let buf = "";
child.stdout.on("data", (chunk) => {
  buf += chunk.toString("utf8");
  let i;
  while ((i = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    const msg = JSON.parse(line);
    wire.push(msg);
    if (msg.method === "session/update") z.zSessionNotification.parse(msg.params);
    else if (msg.method === "session/request_permission") z.zRequestPermissionRequest.parse(msg.params);
    else if (msg.method === undefined && msg.result !== undefined) {
      const schema = {
        initialize: z.zInitializeResponse, "session/new": z.zNewSessionResponse, "session/prompt": z.zPromptResponse,
        "session/close": z.zCloseSessionResponse, "session/set_mode": z.zSetSessionModeResponse,
        "session/load": z.zLoadSessionResponse, "session/list": z.zListSessionsResponse,
      }[sent.get(JSON.stringify(msg.id))];
      if (schema) schema.parse(msg.result);
    }
  }
});
const toAgent = new WritableStream({
  write(chunk) {
    for (const line of Buffer.from(chunk).toString("utf8").split("\n")) {
      if (!line) continue;
      const m = JSON.parse(line);
      if (m.method && m.id !== undefined) sent.set(JSON.stringify(m.id), m.method);
    }
    return new Promise((res, rej) => child.stdin.write(chunk, (e) => (e ? rej(e) : res())));
  },
});
let fromAgentClosed = () => {};
const fromAgent = new ReadableStream({
  cancel() { fromAgentClosed(); },
  start(controller) {
    let open = true;
    child.stdout.on("data", (c) => open && controller.enqueue(new Uint8Array(c)));
    child.stdout.on("end", () => open && controller.close());
    fromAgentClosed = () => { open = false; };
  },
});

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
await app.connectWith(acp.ndJsonStream(toAgent, fromAgent), async (agent) => {
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
