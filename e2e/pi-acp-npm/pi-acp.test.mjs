// pi-acp 0.0.24 and 0.0.34 (unmodified, from npm) running pi-rpc in pi mode, driven by the
// official ACP TypeScript SDK's client against scripted mock-openai servers. Run by
// `make test-pi-acp-npm` with PI_RPC_BINARY and MOCK_OPENAI_BIN set.
//
// pi-acp starts `pi --mode rpc --no-themes [--session FILE]` found on PATH (or the command in
// PI_ACP_PI_COMMAND). The tests put a `pi` first on PATH that is pi-rpc (a symlink, or a
// two-line script when pi-rpc needs a flag of its own), and give pi-acp a pi agent dir whose
// models.json and settings.json name the mock, as a user would.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  mkdtempSync, mkdirSync, writeFileSync, readFileSync, readdirSync, rmSync, symlinkSync, chmodSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, delimiter } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

for (const v of ["PI_RPC_BINARY", "MOCK_OPENAI_BIN"]) {
  if (!process.env[v]) throw new Error(`${v} is not set`);
}
const VERSIONS = ["0.0.24", "0.0.34"];
// A prompt pi-acp never answers (0.0.34 waits for agent_settled) fails its test here instead
// of hanging the run; a passing test takes a few seconds.
const TIMEOUT = 120_000;
const piAcpMain = (version) => fileURLToPath(new URL(`./node_modules/pi-acp-${version}/dist/index.js`, import.meta.url));

// tmp makes a temporary directory, removed when the tests end (KEEP_TMP=1 keeps them).
const made = [];
const tmp = (prefix) => {
  const d = mkdtempSync(join(tmpdir(), `pi-acp-npm-${prefix}-`));
  made.push(d);
  return d;
};
after(() => {
  if (!process.env.KEEP_TMP) for (const d of made) rmSync(d, { recursive: true, force: true });
});

// startMock serves the responses (internal/mockopenai's script format) and returns its URL.
async function startMock(t, responses) {
  const script = join(tmp("mock"), "script.json");
  writeFileSync(script, JSON.stringify({ responses }));
  const proc = spawn(process.env.MOCK_OPENAI_BIN, ["--script", script], { stdio: ["pipe", "pipe", "inherit"] });
  t.after(() => proc.kill("SIGTERM"));
  const rl = createInterface({ input: proc.stdout });
  return new Promise((resolve, reject) => {
    rl.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`mock-openai exited ${code}`)));
  });
}

// makeEnv makes the user's world: a pi agent dir naming the mock as provider "mock" (model m1,
// the default in settings.json), a HOME for pi-acp's session map, and a PATH whose first `pi`
// is pi-rpc. piArgs, when given, are pi-rpc flags put before pi-acp's (a wrapper script).
function makeEnv(url, { piArgs = [] } = {}) {
  const root = tmp("env");
  const agentDir = join(root, "agent");
  mkdirSync(agentDir);
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({
    providers: {
      mock: { baseUrl: url, api: "openai-completions", apiKey: "test-key", models: [{ id: "m1", reasoning: true, contextWindow: 200000 }] },
    },
  }));
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ defaultProvider: "mock", defaultModel: "m1" }));
  const binDir = join(root, "bin");
  mkdirSync(binDir);
  if (piArgs.length === 0) {
    symlinkSync(process.env.PI_RPC_BINARY, join(binDir, "pi"));
  } else {
    const quoted = [process.env.PI_RPC_BINARY, ...piArgs].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    writeFileSync(join(binDir, "pi"), `#!/bin/sh\nexec ${quoted} "$@"\n`);
    chmodSync(join(binDir, "pi"), 0o755);
  }
  const home = join(root, "home");
  mkdirSync(home);
  return {
    agentDir,
    home,
    env: { PATH: `${binDir}${delimiter}${process.env.PATH}`, HOME: home, PI_CODING_AGENT_DIR: agentDir },
  };
}

// startPiAcp runs pi-acp VERSION with env and connects the SDK's client to it. It resolves with
// {agent, updates, permissions, done}: agent sends requests, updates(sid) lists the session's
// updates so far, permissions lists the permission requests, done() ends the connection and
// waits for pi-acp to exit.
async function startPiAcp(t, version, env, { answerPermission } = {}) {
  const child = spawn(process.execPath, [piAcpMain(version)], { stdio: ["pipe", "pipe", "inherit"], env });
  const exited = new Promise((res) => child.once("exit", res));
  t.after(() => child.kill("SIGKILL"));
  const toAgent = new WritableStream({
    write: (chunk) => new Promise((res, rej) => child.stdin.write(chunk, (e) => (e ? rej(e) : res()))),
  });
  // The SDK cancels this stream when the connection ends; nothing is enqueued after that.
  let open = true;
  const fromAgent = new ReadableStream({
    cancel() {
      open = false;
    },
    start(controller) {
      child.stdout.on("data", (c) => open && controller.enqueue(new Uint8Array(c)));
      child.stdout.on("end", () => open && controller.close());
    },
  });
  const bySession = new Map();
  const waiters = [];
  const permissions = [];
  const app = acp
    .client()
    .onNotification("session/update", ({ params }) => {
      if (!bySession.has(params.sessionId)) bySession.set(params.sessionId, []);
      bySession.get(params.sessionId).push(params.update);
      for (const w of [...waiters]) {
        if (w.sid === params.sessionId && w.pred(params.update)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(params.update);
        }
      }
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      return answerPermission ? answerPermission(params) : { outcome: { outcome: "cancelled" } };
    });
  let release;
  const released = new Promise((res) => (release = res));
  const agent = await new Promise((resolve, reject) => {
    app.connectWith(acp.ndJsonStream(toAgent, fromAgent), async (a) => {
      resolve(a);
      await released;
    }).catch(reject);
  });
  return {
    agent,
    permissions,
    updates: (sid) => bySession.get(sid) ?? [],
    clear: (sid) => bySession.set(sid, []),
    // nextUpdate resolves with the session's next update that pred accepts.
    nextUpdate: (sid, pred) => new Promise((resolve) => waiters.push({ sid, pred, resolve })),
    done: async () => {
      release();
      child.stdin.end();
      await exited;
    },
  };
}

const text = (updates, kind = "agent_message_chunk") =>
  updates.filter((u) => u.sessionUpdate === kind && u.content.type === "text").map((u) => u.content.text).join("");

// sessionFiles lists the .jsonl files under the agent dir's sessions/ (pi's layout: one folder
// per encoded cwd).
function sessionFiles(agentDir) {
  const out = [];
  const root = join(agentDir, "sessions");
  for (const d of readdirSync(root)) for (const f of readdirSync(join(root, d))) if (f.endsWith(".jsonl")) out.push(join(root, d, f));
  return out;
}

for (const version of VERSIONS) {
  test(`pi-acp ${version}: new session, prompt, tool calls, cancel, load`, { timeout: TIMEOUT }, async (t) => {
    const url = await startMock(t, [
      { text: "Hello from the mock", chunkSize: 4, usage: { prompt_tokens: 50, completion_tokens: 5 } },
      { toolCalls: [{ id: "call_read", name: "read", arguments: '{"path":"a.txt"}' }] },
      { text: "It says line one." },
      { text: "a long answer that never finishes", chunkSize: 2, stallAfter: 3 },
      { text: "Loaded and continued." },
    ]);
    const { env, agentDir } = makeEnv(url);
    const ws = tmp("ws");
    writeFileSync(join(ws, "a.txt"), "line one\n");

    const c = await startPiAcp(t, version, env);
    const init = await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    assert.equal(init.protocolVersion, 1);
    assert.equal(init.agentInfo.name, "pi-acp");
    assert.equal(init.agentInfo.version, version);
    assert.equal(init.agentCapabilities.loadSession, true);

    // session/new: pi-acp takes pi-rpc's session id and model list (get_state,
    // get_available_models; 0.0.34 also get_available_thinking_levels).
    const created = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
    const sid = created.sessionId;
    assert.match(sid, /^[0-9a-f-]{36}$/);
    assert.equal(created.models.currentModelId, "mock/m1");
    assert.deepEqual(created.models.availableModels.map((m) => m.modelId), ["mock/m1"]);
    assert.ok(created.modes.availableModes.some((m) => m.id === created.modes.currentModeId));
    if (version === "0.0.34") {
      assert.deepEqual(created.configOptions.map((o) => o.id), ["model", "thought_level"]);
    }

    // A prompt: the deltas arrive as agent_message_chunks before the prompt's response.
    let r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "hi" }] });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(text(c.updates(sid)).endsWith("Hello from the mock"), true, text(c.updates(sid)));
    if (version === "0.0.34") {
      // 0.0.34 publishes get_session_stats' contextUsage as usage_update before it answers.
      const usage = c.updates(sid).filter((u) => u.sessionUpdate === "usage_update").at(-1);
      assert.equal(usage?.size, 200000, JSON.stringify(usage));
      assert.ok(usage.used > 0, JSON.stringify(usage));
    }

    // A tool loop. pi-acp reads the call's id and name from message_update's
    // partial.content[contentIndex] while the arguments stream: the first tool_call is "pending".
    c.clear(sid);
    r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "read it" }] });
    assert.equal(r.stopReason, "end_turn");
    const calls = c.updates(sid).filter((u) => u.toolCallId === "call_read");
    assert.equal(calls[0].sessionUpdate, "tool_call");
    assert.equal(calls[0].status, "pending");
    assert.equal(calls[0].title, "read");
    assert.equal(calls[0].kind, "read");
    const started = calls.find((u) => u.status === "in_progress");
    assert.deepEqual(started.rawInput, { path: "a.txt" });
    assert.deepEqual(started.locations, [{ path: join(ws, "a.txt") }]);
    const finished = calls.at(-1);
    assert.equal(finished.status, "completed");
    assert.match(finished.content[0].content.text, /line one/);
    const statuses = calls.map((u) => u.status);
    assert.deepEqual([...new Set(statuses)], ["pending", "in_progress", "completed"], statuses.join(","));
    assert.equal(text(c.updates(sid)), "It says line one.");

    // Cancel mid-stream: the model stalls after three deltas; session/cancel aborts pi-rpc and
    // the prompt ends "cancelled".
    c.clear(sid);
    const firstChunk = c.nextUpdate(sid, (u) => u.sessionUpdate === "agent_message_chunk");
    const cancelled = c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "go on" }] });
    await firstChunk;
    await c.agent.notify("session/cancel", { sessionId: sid });
    r = await cancelled;
    assert.equal(r.stopReason, "cancelled");

    // The session is pi's file in pi's layout, and pi-acp lists it.
    const files = sessionFiles(agentDir);
    assert.equal(files.length, 1);
    const header = JSON.parse(readFileSync(files[0], "utf8").split("\n")[0]);
    assert.equal(header.type, "session");
    assert.equal(header.id, sid);
    assert.equal(header.cwd, ws);
    const listed = await c.agent.request("session/list", { cwd: ws });
    assert.deepEqual(listed.sessions.map((s) => s.sessionId), [sid]);
    await c.done();

    // session/load in a new pi-acp with a fresh HOME (no session map): pi-acp finds the file
    // by walking the agent dir's sessions/, starts `pi --mode rpc --session FILE`, and replays
    // get_messages as updates before answering.
    const env2 = { ...env, HOME: tmp("home2") };
    const c2 = await startPiAcp(t, version, env2);
    await c2.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const loaded = await c2.agent.request("session/load", { sessionId: sid, cwd: ws, mcpServers: [] });
    assert.equal(loaded.models.currentModelId, "mock/m1");
    const replay = c2.updates(sid);
    assert.deepEqual(
      replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text),
      ["hi", "read it", "go on"],
    );
    const replayedText = text(replay);
    assert.ok(replayedText.includes("Hello from the mock"), replayedText);
    assert.ok(replayedText.includes("It says line one."), replayedText);
    const replayedTool = replay.find((u) => u.sessionUpdate === "tool_call");
    assert.equal(replayedTool.toolCallId, "call_read");
    assert.equal(replayedTool.kind, "read");
    assert.match(JSON.stringify(replay.find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === "call_read")), /line one/);

    // The loaded session goes on: the prompt is appended to the same file.
    c2.clear(sid);
    r = await c2.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "and now?" }] });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(text(c2.updates(sid)).endsWith("Loaded and continued."), true);
    assert.deepEqual(sessionFiles(agentDir), files);
    const lines = readFileSync(files[0], "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const userTexts = lines
      .filter((e) => e.type === "message" && e.message.role === "user")
      .map((e) => e.message.content.map((b) => b.text).join(""));
    assert.deepEqual(userTexts, ["hi", "read it", "go on", "and now?"]);
    await c2.done();
  });
}

// pi-acp 0.0.34 turns pi's confirm dialogs into ACP permission requests; pi-rpc --approval ask
// asks through them before bash, write and edit. The `pi` on PATH is a wrapper that adds it.
test("pi-acp 0.0.34: pi-rpc --approval ask confirms through ACP permission requests", { timeout: TIMEOUT }, async (t) => {
  const url = await startMock(t, [
    { toolCalls: [{ id: "call_w1", name: "write", arguments: '{"path":"out.txt","content":"allowed\\n"}' }] },
    { text: "Wrote it." },
    { toolCalls: [{ id: "call_w2", name: "write", arguments: '{"path":"out.txt","content":"refused\\n"}' }] },
    { text: "Could not write." },
  ]);
  const { env } = makeEnv(url, { piArgs: ["--approval", "ask"] });
  const ws = tmp("ws");
  let answer = "yes";
  const c = await startPiAcp(t, "0.0.34", env, { answerPermission: () => ({ outcome: { outcome: "selected", optionId: answer } }) });
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId: sid } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });

  let r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "write it" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(c.permissions.length, 1);
  assert.match(c.permissions[0].toolCall.title, /write/);
  assert.match(c.permissions[0].toolCall.title, /out\.txt/);
  assert.deepEqual(c.permissions[0].options.map((o) => o.optionId), ["yes", "no"]);
  assert.equal(readFileSync(join(ws, "out.txt"), "utf8"), "allowed\n");
  const done = c.updates(sid).filter((u) => u.toolCallId === "call_w1").at(-1);
  assert.equal(done.status, "completed");
  assert.equal(done.content[0].type, "diff");
  assert.equal(done.content[0].newText, "allowed\n");

  answer = "no";
  c.clear(sid);
  r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "write again" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.equal(c.permissions.length, 2);
  assert.equal(readFileSync(join(ws, "out.txt"), "utf8"), "allowed\n");
  assert.equal(c.updates(sid).filter((u) => u.toolCallId === "call_w2").at(-1).status, "failed");
  assert.equal(text(c.updates(sid)), "Could not write.");
  await c.done();
});

// PI_ACP_PI_COMMAND names the command instead of PATH: point it at the pi-rpc binary itself.
test("pi-acp 0.0.24: PI_ACP_PI_COMMAND names pi-rpc", { timeout: TIMEOUT }, async (t) => {
  const url = await startMock(t, [{ text: "Through the variable." }]);
  const { env } = makeEnv(url);
  const bare = { ...env, PATH: process.env.PATH, PI_ACP_PI_COMMAND: process.env.PI_RPC_BINARY };
  const c = await startPiAcp(t, "0.0.24", bare);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId: sid } = await c.agent.request("session/new", { cwd: tmp("ws"), mcpServers: [] });
  const r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "hi" }] });
  assert.equal(r.stopReason, "end_turn");
  assert.ok(text(c.updates(sid)).endsWith("Through the variable."));
  await c.done();
});

// pi-acp 0.0.34 lists pi's get_commands as its slash commands: the prompt templates and skills
// pi-rpc loads from the agent dir, as pi does. A "/skill:x" prompt reaches pi-rpc, which expands
// it: the session file holds the skill's instructions, as pi's does.
test("pi-acp 0.0.34: the agent dir's templates and skills are slash commands", { timeout: TIMEOUT }, async (t) => {
  const url = await startMock(t, [{ text: "Did x." }]);
  const { env, agentDir } = makeEnv(url);
  mkdirSync(join(agentDir, "prompts"));
  writeFileSync(join(agentDir, "prompts", "review.md"), "---\ndescription: Review the code\n---\nReview $1.\n");
  const skillDir = join(agentDir, "skills", "x");
  mkdirSync(skillDir, { recursive: true });
  writeFileSync(join(skillDir, "SKILL.md"), "---\nname: x\ndescription: Does x things.\n---\nDo x carefully.\n");
  const ws = tmp("ws");
  const c = await startPiAcp(t, "0.0.34", env);
  await c.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId: sid } = await c.agent.request("session/new", { cwd: ws, mcpServers: [] });
  const announced = await c.nextUpdate(sid, (u) => u.sessionUpdate === "available_commands_update");
  const byName = new Map(announced.availableCommands.map((a) => [a.name, a.description]));
  assert.equal(byName.get("review"), "Review the code", JSON.stringify(announced));
  assert.equal(byName.get("skill:x"), "Does x things.", JSON.stringify(announced));

  const r = await c.agent.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: "/skill:x do it" }] });
  assert.equal(r.stopReason, "end_turn");
  const lines = readFileSync(sessionFiles(agentDir)[0], "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const user = lines.find((e) => e.type === "message" && e.message.role === "user");
  const sent = user.message.content.map((b) => b.text).join("");
  assert.ok(sent.startsWith(`<skill name="x" location="${join(skillDir, "SKILL.md")}">`), sent);
  assert.ok(sent.endsWith("Do x carefully.\n</skill>\n\ndo it"), sent);
  await c.done();
});
