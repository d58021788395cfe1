// A scripted conversation driven by pi 1.6.0's own RpcClient (unmodified, from
// @earendil-works/pi-coding-agent's dist), covering the commands and events of pi 1.6.0's RPC
// protocol (docs/rpc-commands.md and docs/json.md of that package). runConversation runs it
// against one program (pi 1.6.0 itself, or pi-rpc --mode rpc through the npm launcher's cli.js)
// on bin/mock-openai behind a recording proxy, and returns every check with its outcome, so a
// run reports how many of them pass rather than stopping at the first failure.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, openSync, writeSync, closeSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { isDeepStrictEqual } from "node:util";

const piPkg = new URL("./node_modules/@earendil-works/pi-coding-agent/", import.meta.url);
const { RpcClient } = await import(new URL("dist/modes/rpc/rpc-client.js", piPkg));

// The two programs the script runs against: pi 1.6.0's cli.js, and pi-rpc through the npm
// launcher (clients/npm/cli.js runs PI_RPC_BINARY).
export const targets = {
  pi: { cliPath: new URL("dist/cli.js", piPkg).pathname, env: {} },
  "pi-rpc": {
    cliPath: new URL("../../clients/npm/cli.js", import.meta.url).pathname,
    env: { PI_RPC_BINARY: process.env.PI_RPC_BINARY },
  },
};

// Checks collects named outcomes; a check that throws counts as failed with the error.
class Checks {
  constructor() {
    this.results = [];
  }
  ok(name, cond, detail) {
    this.results.push({ name, pass: !!cond, detail: cond ? undefined : detail });
  }
  eq(name, actual, expected) {
    const pass = isDeepStrictEqual(actual, expected);
    this.results.push({
      name,
      pass,
      detail: pass ? undefined : `got ${JSON.stringify(actual)?.slice(0, 400)}, want ${JSON.stringify(expected)}`,
    });
  }
  async rejects(name, promise, re) {
    try {
      await promise;
      this.results.push({ name, pass: false, detail: "resolved" });
    } catch (err) {
      this.ok(name, re.test(String(err?.message ?? err)), String(err?.message ?? err).slice(0, 300));
    }
  }
}

// startMock serves responses (internal/mockopenai's script format) behind a proxy that records
// each request body, and returns {url, requests}.
async function startMock(cleanups, responses) {
  const dir = mkdtempSync(join(tmpdir(), "pi16-mock-"));
  const script = join(dir, "script.json");
  writeFileSync(script, JSON.stringify({ responses }));
  const proc = spawn(process.env.MOCK_OPENAI_BIN, ["--script", script], { stdio: ["pipe", "pipe", "ignore"] });
  cleanups.push(() => proc.kill("SIGTERM"));
  const upstream = await new Promise((resolve, reject) => {
    createInterface({ input: proc.stdout }).once("line", resolve);
    proc.once("exit", (code) => reject(new Error(`mock-openai exited ${code}`)));
  });
  const requests = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      requests.push(JSON.parse(body));
    } catch {
      requests.push(body);
    }
    const target = new URL(req.url.replace(/^\/v1/, ""), upstream.endsWith("/") ? upstream : upstream + "/");
    const up = await fetch(target, { method: req.method, headers: { "content-type": "application/json" }, body });
    res.writeHead(up.status, Object.fromEntries(up.headers));
    for await (const c of up.body) res.write(c);
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => server.close());
  return { url: `http://127.0.0.1:${server.address().port}/v1`, requests };
}

// startClient starts RpcClient on the target with a fresh agent dir whose models.json names
// the mock as provider "mock" (m1 reasons, m2 does not) and whose settings.json makes retries
// quick.
async function startClient(target, cleanups, responses, { args = [], cwd, model = "m1", agentDir } = {}) {
  const mock = await startMock(cleanups, responses);
  agentDir ??= mkdtempSync(join(tmpdir(), "pi16-agent-"));
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        mock: {
          baseUrl: mock.url,
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
  writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } }));
  const client = new RpcClient({
    cliPath: target.cliPath,
    cwd: cwd ?? mkdtempSync(join(tmpdir(), "pi16-cwd-")),
    provider: model ? "mock" : undefined,
    model: model ?? undefined,
    args,
    env: { ...target.env, PI_CODING_AGENT_DIR: agentDir, HOME: agentDir },
  });
  await client.start();
  cleanups.push(() => client.stop());
  const events = [];
  client.onEvent((e) => events.push(e));
  return { client, requests: mock.requests, events, agentDir, cwd: client.options.cwd };
}

const sessionLines = (file) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

const toolNames = (sys) => (sys?.toolsAdded ?? []).map((t) => t.name);
const requestText = (req) => JSON.stringify(req?.messages ?? req);

// scenes: each takes (target, checks, cleanups) and runs one part of the conversation.
const scenes = {
  // Startup flags, state and thinking levels.
  async startup(target, c, cleanups) {
    const { client, events } = await startClient(target, cleanups, [], {
      args: ["--session-id", "scripted-session-1", "--name", "scripted"],
    });
    const state = await client.getState();
    c.eq("--session-id sets the session id", state.sessionId, "scripted-session-1");
    c.ok("--session-id names the session file", String(state.sessionFile).endsWith("_scripted-session-1.jsonl"), state.sessionFile);
    c.eq("--name sets sessionName", state.sessionName, "scripted");
    c.eq("messageCount starts at 0", state.messageCount, 0);
    c.eq("get_available_thinking_levels on a reasoning model", await client.getAvailableThinkingLevels(), [
      "off",
      "minimal",
      "low",
      "medium",
      "high",
    ]);
    await client.setThinkingLevel("low");
    c.eq("set_thinking_level emits thinking_level_changed", events.find((e) => e.type === "thinking_level_changed"), {
      type: "thinking_level_changed",
      level: "low",
    });
    c.eq("get_state has the thinking level", (await client.getState()).thinkingLevel, "low");
    await client.setModel("mock", "m2");
    c.eq("get_available_thinking_levels without reasoning", await client.getAvailableThinkingLevels(), ["off"]);
    events.length = 0;
    await client.setSessionName("renamed");
    c.eq("set_session_name emits session_info_changed", events.find((e) => e.type === "session_info_changed"), {
      type: "session_info_changed",
      name: "renamed",
    });
    c.eq("get_state has the new name", (await client.getState()).sessionName, "renamed");
  },

  // A tool loop: the system message, delta-only message_update, durations, thinking level.
  async toolLoop(target, c, cleanups) {
    const { client, requests } = await startClient(target, cleanups, [
      { toolCalls: [{ id: "call_1", name: "bash", arguments: '{"command":"echo tool-output"}' }] },
      { text: "The tool said tool-output.", usage: { prompt_tokens: 50, completion_tokens: 7 } },
    ]);
    await client.setThinkingLevel("low");
    const events = await client.promptAndWait("run echo");
    c.eq("the run starts with agent_start", events[0]?.type, "agent_start");
    const starts = events.filter((e) => e.type === "message_start");
    const sys = starts[0]?.message;
    c.eq("the first message of the first turn is the system message", sys?.role, "system");
    c.ok("the system message has sections", sys?.sections && typeof sys.sections === "object" && Object.keys(sys.sections).length > 0, JSON.stringify(sys)?.slice(0, 300));
    c.eq("the system message adds pi's default tools", toolNames(sys), ["read", "bash", "edit", "write"]);
    c.ok("each added tool has a description and parameters", (sys?.toolsAdded ?? []).every((t) => t.description && t.parameters?.type === "object"));
    c.eq("the system message comes before the user message", starts[1]?.message?.role, "user");
    const sysEnd = events.find((e) => e.type === "message_end" && e.message.role === "system");
    c.ok("the system message has a message_end", sysEnd);
    const updates = events.filter((e) => e.type === "message_update");
    c.ok("message_update has no cumulative message", updates.length > 0 && updates.every((e) => !("message" in e)), updates.length);
    c.ok("assistantMessageEvent has no partial", updates.every((e) => !("partial" in e.assistantMessageEvent)));
    c.ok("message_update carries usage", updates.every((e) => e.usage && typeof e.usage.totalTokens === "number"));
    const tcStart = updates.find((e) => e.assistantMessageEvent.type === "toolcall_start")?.assistantMessageEvent;
    c.eq("toolcall_start names the call", tcStart && { id: tcStart.id, toolName: tcStart.toolName }, { id: "call_1", toolName: "bash" });
    const tcEnd = updates.find((e) => e.assistantMessageEvent.type === "toolcall_end")?.assistantMessageEvent;
    c.eq("toolcall_end has the complete call", tcEnd?.toolCall, { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "echo tool-output" } });
    const deltas = updates.filter((e) => e.assistantMessageEvent.type === "text_delta").map((e) => e.assistantMessageEvent.delta);
    c.eq("text deltas add up to the answer", deltas.join(""), "The tool said tool-output.");
    const assistants = events.filter((e) => e.type === "message_end" && e.message.role === "assistant").map((e) => e.message);
    c.ok("assistant messages carry thinkingLevel", assistants.length === 2 && assistants.every((m) => m.thinkingLevel === "low"), JSON.stringify(assistants.map((m) => m.thinkingLevel)));
    c.ok("assistant messages carry durationMs", assistants.every((m) => typeof m.durationMs === "number" && m.durationMs >= 0));
    const toolEnd = events.find((e) => e.type === "tool_execution_end");
    c.ok("tool_execution_end carries durationMs", typeof toolEnd?.durationMs === "number", JSON.stringify(toolEnd)?.slice(0, 300));
    c.ok("tool_execution_end has the output", /tool-output/.test(toolEnd?.result?.content?.[0]?.text));
    c.eq("agent_settled ends the run", events.at(-1), { type: "agent_settled", aborted: false });
    const agentEnd = events.find((e) => e.type === "agent_end");
    c.eq("agent_end.willRetry is false", agentEnd?.willRetry, false);
    c.ok("the request declares pi's default tools", isDeepStrictEqual((requests[0]?.tools ?? []).map((t) => t.function?.name), ["read", "bash", "edit", "write"]), JSON.stringify((requests[0]?.tools ?? []).map((t) => t.function?.name)));
    c.ok("the request's first message is the system prompt", ["system", "developer"].includes(requests[0]?.messages?.[0]?.role));
    const messages = await client.getMessages();
    c.eq("get_messages starts with the system message", messages[0]?.role, "system");
    c.eq("get_messages roles", messages.map((m) => m.role), ["system", "user", "assistant", "toolResult", "assistant"]);
    c.eq("get_last_assistant_text", await client.getLastAssistantText(), "The tool said tool-output.");
    const state = await client.getState();
    const lines = sessionLines(state.sessionFile);
    const sysEntry = lines.find((l) => l.type === "message" && l.message.role === "system");
    c.ok("the session file stores the system message", sysEntry && isDeepStrictEqual(toolNames(sysEntry.message), ["read", "bash", "edit", "write"]), JSON.stringify(toolNames(sysEntry?.message)));
    const stored = lines.filter((l) => l.type === "message" && l.message.role === "assistant");
    c.ok("the session file stores thinkingLevel and durationMs", stored.length === 2 && stored.every((l) => l.message.thinkingLevel === "low" && typeof l.message.durationMs === "number"));
    const stats = await client.getSessionStats();
    c.eq("get_session_stats counts", [stats.userMessages, stats.assistantMessages, stats.toolCalls, stats.toolResults], [1, 2, 1, 1]);

    // A second prompt: no second system message (nothing changed).
    const requestsBefore = requests.length;
    const second = await client.promptAndWait("again");
    c.ok("a later prompt emits no system message", !second.some((e) => e.type === "message_start" && e.message.role === "system"));
    c.ok("the later prompt fails visibly (no script left)", requests.length > requestsBefore);
  },

  // get_last_assistant_text skips tool-only, aborted and failed messages.
  async lastText(target, c, cleanups) {
    const { client } = await startClient(target, cleanups, [
      { text: "first answer" },
      { toolCalls: [{ id: "call_t", name: "bash", arguments: '{"command":"true"}' }] },
      { status: 400, error: { message: "bad request from the mock", type: "invalid_request_error" } },
      { text: "a long answer that never finishes", chunkSize: 2, stallAfter: 3 },
    ]);
    await client.promptAndWait("one");
    c.eq("get_last_assistant_text after an answer", await client.getLastAssistantText(), "first answer");
    const failed = await client.promptAndWait("two");
    const lastEnd = failed.filter((e) => e.type === "message_end" && e.message.role === "assistant").at(-1)?.message;
    c.eq("a non-retryable failure ends the message with an error", lastEnd?.stopReason, "error");
    c.eq("get_last_assistant_text skips tool-only and failed messages", await client.getLastAssistantText(), "first answer");
    const gotUpdate = new Promise((resolve) => {
      const off = client.onEvent((e) => {
        if (e.type === "message_update" && e.assistantMessageEvent.type === "text_delta") {
          off();
          resolve();
        }
      });
    });
    const settled = client.collectEvents();
    await client.prompt("three");
    await gotUpdate;
    await client.abort();
    const aborted = await settled;
    c.eq("abort settles with aborted", aborted.at(-1), { type: "agent_settled", aborted: true });
    // Text from an aborted turn counts; only an aborted or failed message without text is skipped.
    const abortedText = aborted
      .filter((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_delta")
      .map((e) => e.assistantMessageEvent.delta)
      .join("");
    c.eq("get_last_assistant_text keeps an aborted message's text", await client.getLastAssistantText(), abortedText);
  },

  // bash: bash_execution_update {id, delta}; excludeFromContext keeps output out of the context.
  async bash(target, c, cleanups) {
    const { client, requests, events } = await startClient(target, cleanups, [{ text: "seen" }]);
    const res = await client.bash("echo included-output; exit 3");
    const updates = events.filter((e) => e.type === "bash_execution_update");
    c.ok("bash streams bash_execution_update", updates.length > 0);
    c.ok("bash_execution_update has the command's id", updates.length > 0 && updates.every((e) => /^req_\d+$/.test(e.id)), JSON.stringify(updates[0]));
    c.eq("bash_execution_update has only type, id and delta", updates[0] && Object.keys(updates[0]).sort(), ["delta", "id", "type"]);
    c.eq("the deltas add up to the output", updates.map((e) => e.delta).join(""), "included-output\n");
    c.eq("bash result", [res.output, res.exitCode, res.cancelled, res.truncated], ["included-output\n", 3, false, false]);
    const excluded = await client.send({ type: "bash", command: "echo secret-output", excludeFromContext: true });
    c.ok("bash with excludeFromContext succeeds", excluded.success && /secret-output/.test(excluded.data.output));
    const messages = await client.getMessages();
    const bashMsgs = messages.filter((m) => m.role === "bashExecution");
    c.eq("get_messages has both bash executions", bashMsgs.map((m) => m.command), ["echo included-output; exit 3", "echo secret-output"]);
    c.eq("the excluded one records excludeFromContext", bashMsgs[1]?.excludeFromContext, true);
    await client.promptAndWait("what ran?");
    const body = requestText(requests[0]);
    c.ok("included bash output reaches the model", /included-output/.test(body), body.slice(0, 300));
    c.ok("excluded bash output does not reach the model", !/secret-output/.test(body));
    const state = await client.getState();
    const stored = sessionLines(state.sessionFile).filter((l) => l.type === "message" && l.message.role === "bashExecution");
    c.eq("the session file stores excludeFromContext", stored.map((l) => l.message.excludeFromContext ?? false), [false, true]);
  },

  // clear_queue during a run returns the queued texts and empties the queue.
  async clearQueue(target, c, cleanups) {
    const cwd = mkdtempSync(join(tmpdir(), "pi16-cwd-"));
    execFileSync("mkfifo", [join(cwd, "gate")]);
    const { client, events } = await startClient(
      target,
      cleanups,
      [{ toolCalls: [{ id: "call_g", name: "bash", arguments: '{"command":"cat gate"}' }] }, { text: "done" }],
      { cwd },
    );
    const started = new Promise((resolve) => {
      const off = client.onEvent((e) => {
        if (e.type === "tool_execution_start") {
          off();
          resolve();
        }
      });
    });
    const all = client.collectEvents();
    c.eq("prompt disposition started", await client.prompt("run the gate"), "started");
    await started;
    c.eq("steer disposition queued", await client.steer("steer now"), "queued");
    c.eq("follow_up disposition queued", await client.followUp("then follow"), "queued");
    c.eq("prompt with streamingBehavior is queued", await client.prompt("queued prompt", undefined, "followUp"), "queued");
    c.eq("pendingMessageCount", (await client.getState()).pendingMessageCount, 3);
    const cleared = await client.clearQueue();
    c.eq("clear_queue returns the texts", cleared, { steering: ["steer now"], followUp: ["then follow", "queued prompt"] });
    c.eq("clear_queue announces the empty queue", events.filter((e) => e.type === "queue_update").at(-1), {
      type: "queue_update",
      steering: [],
      followUp: [],
    });
    c.eq("nothing pending after clear_queue", (await client.getState()).pendingMessageCount, 0);
    const fd = openSync(join(cwd, "gate"), "w");
    writeSync(fd, "open\n");
    closeSync(fd);
    const done = await all;
    const users = done.filter((e) => e.type === "message_start" && e.message.role === "user");
    c.eq("the cleared messages never run", users.length, 1);
    c.eq("get_last_assistant_text after the run", await client.getLastAssistantText(), "done");
  },

  // A retried failure: hidden from the context with a context_edit, announced by entry_appended.
  async retry(target, c, cleanups) {
    const { client, requests } = await startClient(target, cleanups, [
      { status: 500, error: { message: "upstream exploded", type: "server_error" } },
      { text: "recovered" },
      { text: "second answer" },
    ]);
    const events = await client.promptAndWait("try");
    const retryStart = events.find((e) => e.type === "auto_retry_start");
    c.ok("auto_retry_start", retryStart && retryStart.attempt === 1 && retryStart.maxAttempts === 2 && typeof retryStart.delayMs === "number", JSON.stringify(retryStart));
    c.eq("auto_retry_end", events.find((e) => e.type === "auto_retry_end"), { type: "auto_retry_end", success: true, attempt: 1 });
    const ends = events.filter((e) => e.type === "agent_end");
    c.eq("agent_end.willRetry is true, then false", ends.map((e) => e.willRetry), [true, false]);
    c.eq("one agent_settled", events.filter((e) => e.type === "agent_settled").length, 1);
    const appended = events.find((e) => e.type === "entry_appended");
    c.eq("entry_appended announces a context_edit", appended?.entry?.type, "context_edit");
    c.eq("the context_edit omits its target", appended?.entry?.replacement, null);
    const { entries } = await client.getEntries();
    const failed = entries.find((e) => e.type === "message" && e.message.role === "assistant" && e.message.stopReason === "error");
    c.ok("get_entries keeps the failed message", failed);
    const edit = entries.find((e) => e.type === "context_edit");
    c.ok("get_entries has the context_edit", edit);
    c.eq("the context_edit targets the failed message", edit?.targetId, failed?.id);
    c.eq("the entry_appended entry is the stored one", appended?.entry, edit);
    const messages = await client.getMessages();
    c.ok("get_messages hides the retried failure", !messages.some((m) => m.role === "assistant" && m.stopReason === "error"), JSON.stringify(messages.map((m) => m.role + ":" + (m.stopReason ?? ""))));
    c.eq("get_messages roles after the retry", messages.map((m) => m.role), ["system", "user", "assistant"]);
    await client.promptAndWait("more");
    const body = requestText(requests.at(-1));
    c.ok("the retried failure does not reach the model", !/upstream exploded/.test(body));
    // The instruction's role is the provider's business (pi 1.6.0 sends "system" to a
    // non-OpenAI host, pi-rpc "developer" to a reasoning model: docs/pi-compat.md).
    const roles = (requests.at(-1)?.messages ?? []).map((m) => (m.role === "developer" ? "system" : m.role));
    c.eq("the later request has the kept turns", roles, ["system", "user", "assistant", "user"]);
    const state = await client.getState();
    const lines = sessionLines(state.sessionFile);
    c.ok("the session file stores the context_edit", lines.some((l) => l.type === "context_edit" && l.targetId === failed?.id && l.replacement === null));
  },

  // Compaction: a short session refuses with events; a failed summary is retried; results.
  async compaction(target, c, cleanups) {
    const big = "word ".repeat(20000);
    const { client, events, requests } = await startClient(target, cleanups, [
      { text: "one" },
      { text: "two" },
      { status: 500, error: { message: "summary exploded", type: "server_error" } },
      { text: "## Goal\nSummarised.", usage: { prompt_tokens: 900, completion_tokens: 20 } },
      { text: "after compaction" },
    ]);
    events.length = 0;
    await c.rejects("compact on an empty session fails", client.compact(), /./);
    const cs = events.find((e) => e.type === "compaction_start");
    c.eq("a refused compact emits compaction_start", cs, { type: "compaction_start", reason: "manual" });
    const ce = events.find((e) => e.type === "compaction_end");
    c.ok("a refused compact emits compaction_end with the error", ce && ce.reason === "manual" && ce.aborted === false && typeof ce.errorMessage === "string" && !ce.result, JSON.stringify(ce));
    await client.promptAndWait(`first ${big}`);
    await client.promptAndWait(`second ${big}`);
    events.length = 0;
    const res = await client.compact();
    c.ok("the compact result has the summary", /Summarised/.test(res.summary), res.summary);
    c.ok("the compact result has tokensBefore", res.tokensBefore > 0);
    c.ok("the compact result has estimatedTokensAfter", typeof res.estimatedTokensAfter === "number" && res.estimatedTokensAfter > 0 && res.estimatedTokensAfter < res.tokensBefore, JSON.stringify(res.estimatedTokensAfter));
    c.ok("the compact result has usage", res.usage && res.usage.input === 900 && res.usage.output === 20, JSON.stringify(res.usage));
    c.ok("the compact result has firstKeptEntryId", typeof res.firstKeptEntryId === "string");
    const types = events.map((e) => e.type);
    c.eq("a failed summary is retried visibly", types.filter((t) => t.startsWith("summarization_retry") || t.startsWith("compaction_")), [
      "compaction_start",
      "summarization_retry_scheduled",
      "summarization_retry_attempt_start",
      "summarization_retry_finished",
      "compaction_end",
    ]);
    const sched = events.find((e) => e.type === "summarization_retry_scheduled");
    c.ok("summarization_retry_scheduled has the attempt", sched && sched.attempt === 1 && typeof sched.maxAttempts === "number" && typeof sched.delayMs === "number" && typeof sched.errorMessage === "string", JSON.stringify(sched));
    c.eq("summarization_retry_attempt_start names the compaction", events.find((e) => e.type === "summarization_retry_attempt_start"), {
      type: "summarization_retry_attempt_start",
      source: "compaction",
      reason: "manual",
    });
    const end = events.find((e) => e.type === "compaction_end");
    c.ok("compaction_end has the result", end?.result?.summary === res.summary && end.aborted === false && end.willRetry === false, JSON.stringify(end)?.slice(0, 300));
    const messages = await client.getMessages();
    c.eq("get_messages after compaction starts with the system checkpoint", messages[0]?.role, "system");
    c.eq("then the summary", messages[1]?.role, "compactionSummary");
    const state = await client.getState();
    const comp = sessionLines(state.sessionFile).find((l) => l.type === "compaction");
    c.eq("the compaction entry stores the system message", comp?.systemMessage?.role, "system");
    c.eq("the compaction entry's system message has the tools", toolNames(comp?.systemMessage), ["read", "bash", "edit", "write"]);
    c.ok("the compaction entry stores usage", comp?.usage?.input === 900, JSON.stringify(comp?.usage));
    const after = await client.promptAndWait("continue");
    // The compaction's checkpoint declares the prompt and tools, so nothing new is emitted.
    c.ok("the compaction checkpoint stands for the system message", !after.some((e) => e.type === "message_start" && e.message.role === "system"));
    const lead = (requests.at(-1)?.messages ?? []).slice(0, 2).map((m) => (m.role === "developer" ? "system" : m.role));
    c.eq("the request after compaction leads with system, summary", lead, ["system", "user"]);
  },
};

scenes.resume = async function resume(target, c, cleanups) {
  const first = await startClient(target, cleanups, [{ text: "first answer" }]);
  await first.client.setThinkingLevel("high");
  await first.client.promptAndWait("remember this");
  const state = await first.client.getState();
  const before = await first.client.getMessages();
  await first.client.stop();
  // --session FILE and no model flags (how pi-acp resumes): the file's model and level.
  const again = await startClient(target, cleanups, [{ text: "second answer" }], {
    model: null,
    agentDir: first.agentDir,
    cwd: first.cwd,
    args: ["--session", state.sessionFile],
  });
  const resumed = await again.client.getState();
  c.eq("--session FILE restores the model", resumed.model && [resumed.model.provider, resumed.model.id], ["mock", "m1"]);
  c.eq("--session FILE restores the thinking level", resumed.thinkingLevel, "high");
  c.eq("--session FILE opens that session", resumed.sessionId, state.sessionId);
  c.eq("the resumed session has the same messages", (await again.client.getMessages()).map((m) => m.role), before.map((m) => m.role));
  await again.client.promptAndWait("and now?");
  c.eq("the resumed session continues", await again.client.getLastAssistantText(), "second answer");
  c.ok("no second system message on resume", !(await again.client.getMessages()).slice(1).some((m) => m.role === "system"));
};

// runConversation runs every scene against target and returns the checks' results.
export async function runConversation(target) {
  const c = new Checks();
  for (const [name, scene] of Object.entries(scenes)) {
    const cleanups = [];
    const before = c.results.length;
    try {
      await scene(target, c, cleanups);
    } catch (err) {
      c.results.push({ name: `${name}: scene completed`, pass: false, detail: String(err?.stack ?? err).slice(0, 600) });
    }
    for (const r of c.results.slice(before)) r.name = `${name}: ${r.name}`;
    for (const f of cleanups.reverse()) await f();
  }
  return c.results;
}
