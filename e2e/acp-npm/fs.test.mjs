// The official ACP TypeScript SDK as an editor that serves fs/read_text_file and
// fs/write_text_file from its own buffers, which differ from the disk. The Go test
// TestACPTypeScriptSDKFs starts the mock model server (a read, an edit, a write, a read of a
// missing file, then text) and runs this with PI_RPC_BIN, MOCK_URL and WORKSPACE set; it
// then checks what the model saw. Every message the agent writes, and every answer this
// client gives, is checked against the SDK's own zod schemas. Exit status 0 means every
// check passed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { startAgent } from "./harness.mjs";
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const ws = process.env.WORKSPACE;
const a = join(ws, "a.txt");
const b = join(ws, "b.txt");
writeFileSync(a, "saved text\n");
// The editor's buffers: a.txt has unsaved changes.
const buffers = new Map([[a, "unsaved text\n"]]);

const { child, wire, stream } = startAgent();

const updates = [];
const permissions = [];
const reads = [];
const writes = [];
const app = acp
  .client()
  .onNotification("session/update", ({ params }) => { updates.push(params.update); })
  .onRequest("session/request_permission", async ({ params }) => {
    permissions.push(params);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  })
  .onRequest("fs/read_text_file", async ({ params }) => {
    reads.push(params.path);
    if (!buffers.has(params.path)) throw acp.RequestError.resourceNotFound(params.path);
    return z.zReadTextFileResponse.parse({ content: buffers.get(params.path) });
  })
  .onRequest("fs/write_text_file", async ({ params }) => {
    writes.push(params.path);
    buffers.set(params.path, params.content);
    return z.zWriteTextFileResponse.parse({});
  });

try {
  await app.connectWith(stream, async (agent) => {
    const init = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
    assert.equal(init.protocolVersion, 1);
    const { sessionId: sid } = await agent.request("session/new", { cwd: ws, mcpServers: [] });
    const r = await agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "go" }] });
    assert.equal(r.stopReason, "end_turn");
  });

  // Every path asked for is absolute; the reads came from the buffers.
  for (const p of [...reads, ...writes]) assert.ok(p.startsWith("/"), `relative path ${p}`);
  assert.ok(reads.includes(a));
  // The read's result is the unsaved buffer.
  const final = (id) => updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === id).at(-1);
  assert.equal(final("call_read").status, "completed");
  assert.equal(final("call_read").content[0].content.text, "unsaved text\n");
  // The edit's permission diff and its result diff start from the buffer; the buffer
  // changed, the disk did not.
  const edit = permissions.find((p) => p.toolCall.toolCallId === "call_edit");
  assert.deepEqual(edit.toolCall.content[0], { type: "diff", path: a, oldText: "unsaved text\n", newText: "edited text\n" });
  assert.deepEqual(final("call_edit").content[0], { type: "diff", path: a, oldText: "unsaved text\n", newText: "edited text\n" });
  assert.equal(buffers.get(a), "edited text\n");
  assert.equal(readFileSync(a, "utf8"), "saved text\n");
  // The write landed in the editor, not on disk; its diff is a new file's.
  assert.equal(buffers.get(b), "new file\n");
  assert.equal(existsSync(b), false);
  assert.deepEqual(final("call_write").content[0], { type: "diff", path: b, newText: "new file\n" });
  // The editor's error is the tool's.
  assert.equal(final("call_missing").status, "failed");
  assert.match(final("call_missing").content[0].content.text, /^Could not read missing\.txt: the editor answered: /);
} catch (e) {
  console.error("FAILED:", e);
  console.error(wire.map((m) => JSON.stringify(m)).join("\n"));
  child.kill();
  process.exit(1);
}
child.stdin.end();
await new Promise((res) => child.on("exit", res));
console.log(`ok: ${wire.length} messages validated, ${reads.length} reads and ${writes.length} writes served`);
