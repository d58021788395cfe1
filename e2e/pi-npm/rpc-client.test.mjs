// pi's own RpcClient (@mariozechner/pi-coding-agent@0.73.1, unmodified) driving
// `pi-rpc --mode rpc` against scripted mock-openai servers, through the npm launcher as a user
// installs it: the pi-rpc package and this machine's platform package, from the tarballs of
// clients/npm (make npm-host), installed offline into a fresh project; cliPath is that
// project's node_modules/pi-rpc/cli.js, and the binary it runs is the platform package's.
// Run by `make test-pi-npm` with PI_RPC_NPM_DIR, PI_RPC_NPM_VERSION and MOCK_OPENAI_BIN set.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, openSync, closeSync, writeSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { installProject } from "../../clients/npm/test/install.mjs";

// The package's exports map has no subpath for the client; load its module file directly.
const { RpcClient } = await import(
  new URL("./node_modules/@mariozechner/pi-coding-agent/dist/modes/rpc/rpc-client.js", import.meta.url)
);
if (!process.env.MOCK_OPENAI_BIN) throw new Error("MOCK_OPENAI_BIN is not set");
// RpcClient passes its own environment on: without PI_RPC_BINARY the launcher must find the
// binary in the platform package.
delete process.env.PI_RPC_BINARY;
const { cliPath } = installProject(after);

// startMock serves the responses (internal/mockopenai's script format) and returns its URL.
async function startMock(t, responses) {
  const dir = mkdtempSync(join(tmpdir(), "pi-npm-mock-"));
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ responses }));
  const proc = spawn(process.env.MOCK_OPENAI_BIN, ["--script", script], { stdio: ["pipe", "pipe", "inherit"] });
  t.after(() => proc.kill("SIGTERM"));
  const rl = createInterface({ input: proc.stdout });
  const url = await new Promise((resolve, reject) => {
    rl.once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`mock-openai exited ${code}`)));
  });
  return url;
}

// startClient starts RpcClient on pi-rpc with a pi agent dir whose models.json names the
// mock as provider "mock" (models m1, reasoning, and m2).
async function startClient(t, responses, { args = [], cwd } = {}) {
  const url = await startMock(t, responses);
  const agentDir = mkdtempSync(join(tmpdir(), "pi-npm-agent-"));
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        mock: {
          baseUrl: url,
          api: "openai-completions",
          apiKey: "test-key",
          models: [
            { id: "m1", reasoning: true, contextWindow: 200000 },
            { id: "m2", contextWindow: 32000 },
          ],
        },
      },
    }),
  );
  const client = new RpcClient({
    cliPath,
    cwd: cwd ?? mkdtempSync(join(tmpdir(), "pi-npm-cwd-")),
    provider: "mock",
    model: "m1",
    args,
    env: { PI_CODING_AGENT_DIR: agentDir, HOME: agentDir },
  });
  await client.start();
  t.after(() => client.stop());
  return client;
}

// nextEvent resolves with the next event of a type.
function nextEvent(client, type) {
  return new Promise((resolve) => {
    const off = client.onEvent((e) => {
      if (e.type === type) {
        off();
        resolve(e);
      }
    });
  });
}

const userTexts = (events) =>
  events
    .filter((e) => e.type === "message_start" && e.message.role === "user")
    .map((e) => e.message.content.map((c) => c.text).join(""));

test("prompt and stats", async (t) => {
  const client = await startClient(t, [{ text: "Hello from the mock", chunkSize: 4 }]);
  const state = await client.getState();
  assert.equal(state.model.provider, "mock");
  assert.equal(state.model.id, "m1");
  assert.equal(state.isStreaming, false);
  assert.equal(state.messageCount, 0);
  const events = await client.promptAndWait("hi");
  assert.equal(events[0].type, "agent_start");
  const deltas = events
    .filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta")
    .map((e) => e.assistantMessageEvent.delta);
  assert.equal(deltas.join(""), "Hello from the mock");
  // pi 1.6.0's message_update carries only the delta (no partial snapshot), and pi 1.6.0 fails
  // 0.73.1's assertion that every update has one too: pi mode follows 1.6.0
  // (docs/pi-compat.md).
  assert.ok(events.every((e) => e.type !== "message_update" || !("partial" in e.assistantMessageEvent)));
  assert.equal(await client.getLastAssistantText(), "Hello from the mock");
  const stats = await client.getSessionStats();
  assert.equal(stats.userMessages, 1);
  assert.equal(stats.assistantMessages, 1);
  assert.ok(stats.sessionId);
  assert.ok(stats.sessionFile && existsSync(stats.sessionFile));
});

test("tool loop", async (t) => {
  const client = await startClient(t, [
    { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo tool-output"}' }] },
    { text: "The tool said tool-output." },
  ]);
  const events = await client.promptAndWait("run echo");
  const end = events.find((e) => e.type === "tool_execution_end");
  assert.equal(end.toolName, "bash");
  assert.equal(end.isError, false);
  assert.match(end.result.content[0].text, /tool-output/);
  const call = events.find(
    (e) => e.type === "message_update" && e.assistantMessageEvent.type === "toolcall_end",
  );
  // 0.73.1 read the call from assistantMessageEvent.partial, which pi 1.6.0 no longer sends
  // (it fails that assertion too); toolcall_end's toolCall has it in both.
  assert.equal(call.assistantMessageEvent.toolCall.id, "call_1");
  assert.equal(call.assistantMessageEvent.toolCall.name, "bash");
  assert.equal(await client.getLastAssistantText(), "The tool said tool-output.");
});

test("steer and follow-up during a bash tool", async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), "pi-npm-cwd-"));
  execFileSync("mkfifo", [join(cwd, "gate")]);
  const client = await startClient(
    t,
    [
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"cat gate"}' }] },
      { text: "steered" },
      { text: "followed" },
    ],
    { cwd },
  );
  const started = nextEvent(client, "tool_execution_start");
  const events = client.collectEvents();
  await client.prompt("run the gate");
  await started;
  const queued = [];
  const off = client.onEvent((e) => e.type === "queue_update" && queued.push(e));
  await client.steer("steer now");
  await client.followUp("then follow");
  off();
  assert.deepEqual(queued[0], { type: "queue_update", steering: ["steer now"], followUp: [] });
  assert.deepEqual(queued[1], { type: "queue_update", steering: ["steer now"], followUp: ["then follow"] });
  const state = await client.getState();
  assert.equal(state.isStreaming, true);
  assert.equal(state.pendingMessageCount, 2);
  const fd = openSync(join(cwd, "gate"), "w");
  writeSync(fd, "open\n");
  closeSync(fd);
  const all = await events;
  assert.deepEqual(userTexts(all), ["run the gate", "steer now", "then follow"]);
  assert.equal(all.filter((e) => e.type === "agent_start").length, 1);
  assert.equal(await client.getLastAssistantText(), "followed");
});

test("abort", async (t) => {
  const client = await startClient(t, [{ text: "a long answer that never finishes", chunkSize: 2, stallAfter: 3 }]);
  const update = nextEvent(client, "message_update");
  const ended = nextEvent(client, "agent_end");
  await client.prompt("go");
  await update;
  let endSeen = false;
  ended.then(() => (endSeen = true));
  await client.abort();
  await ended;
  assert.equal(endSeen, true, "abort resolved before agent_end");
  const state = await client.getState();
  assert.equal(state.isStreaming, false);
});

test("bash command", async (t) => {
  const client = await startClient(t, []);
  const res = await client.bash("echo hello; exit 2");
  assert.equal(res.output.trim(), "hello");
  assert.equal(res.exitCode, 2);
  assert.equal(res.cancelled, false);
});

test("models and thinking levels", async (t) => {
  const client = await startClient(t, []);
  const models = await client.getAvailableModels();
  assert.ok(models.some((m) => m.provider === "mock" && m.id === "m2"));
  for (const m of models) {
    assert.equal(typeof m.reasoning, "boolean");
    assert.ok(m.contextWindow > 0);
  }
  await client.setThinkingLevel("high");
  assert.equal((await client.getState()).thinkingLevel, "high");
  const before = (await client.getState()).thinkingLevel;
  const cycled = await client.cycleThinkingLevel();
  assert.notEqual(cycled.level, before);
  assert.equal((await client.getState()).thinkingLevel, cycled.level);
  const m2 = await client.setModel("mock", "m2");
  assert.equal(m2.id, "m2");
  assert.equal((await client.getState()).model.id, "m2");
  assert.equal(await client.cycleThinkingLevel(), null);
  await assert.rejects(client.setModel("mock", "nope"), /Model not found: mock\/nope/);
  const next = await client.cycleModel();
  assert.ok(next.model.id);
});

test("compact", async (t) => {
  const big = "word ".repeat(20000);
  const client = await startClient(t, [{ text: "one" }, { text: "two" }, { text: "## Goal\nSummarised." }]);
  await client.promptAndWait(`first ${big}`);
  await client.promptAndWait(`second ${big}`);
  const res = await client.compact();
  assert.match(res.summary, /Summarised/);
  assert.ok(res.tokensBefore > 0);
  const messages = await client.getMessages();
  // pi 1.6.0 leads a compacted context with the compaction's system message, then the
  // summary; it fails 0.73.1's messages[0] === "compactionSummary" too.
  assert.equal(messages[0].role, "system");
  assert.equal(messages[1].role, "compactionSummary");
});

test("new session", async (t) => {
  const client = await startClient(t, [{ text: "first" }]);
  await client.promptAndWait("hello");
  const before = await client.getState();
  // 3 with pi 1.6.0, which counts the system message of the first prompt (0.73.1: 2).
  assert.equal(before.messageCount, 3);
  const res = await client.newSession();
  assert.equal(res.cancelled, false);
  const after = await client.getState();
  assert.equal(after.messageCount, 0);
  assert.notEqual(after.sessionId, before.sessionId);
});
