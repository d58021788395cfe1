// Produces session/testdata/sessions/pi-0.73.1/ with pi 0.73.1 itself (see the README there).
//
//   node compat/make-fixtures.mjs <pi package dir> <mock-openai binary> <output dir>
//
// basic.jsonl is written by `pi --mode rpc` offline against the mock OpenAI server: a reply,
// a tool call (read) and its result, a user bash command, a session name, a manual
// compaction and a reply after it. branched.jsonl is basic.jsonl continued with pi's own
// SessionManager: a branch from the first reply, a label, a branch summary, a custom message
// and a custom entry. Each *.messages.json is pi's projection of the file (get_messages /
// buildSessionContext), which pi-rpc must reproduce.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { RpcProcess, cleanup, piEnv, startMock, tempDir } from "./pirpc.mjs";

const [pkg, mockBin, out] = process.argv.slice(2);
if (!pkg || !mockBin || !out) {
	console.error("usage: make-fixtures.mjs <pi package dir> <mock-openai> <out dir>");
	process.exit(2);
}
mkdirSync(out, { recursive: true });

const usage = { prompt_tokens: 120, completion_tokens: 12 };
const { url } = await startMock(mockBin, [
	{ text: "Hello! How can I help?", usage },
	{ toolCalls: [{ id: "call_read_1", name: "read", arguments: JSON.stringify({ path: "notes.txt" }) }], usage },
	{ text: "The notes say: buy milk.", usage },
	{ text: "## Goal\nRead the notes.\n\n## Progress\n- [x] Read notes.txt", usage },
	{ text: "The turn read notes.txt.", usage },
	{ text: "Done after compaction.", usage },
]);
const home = piEnv(url, { compaction: { keepRecentTokens: 1 } });
const work = tempDir("pi-work-");
writeFileSync(join(work, "notes.txt"), "buy milk\n");

const pi = new RpcProcess(join(pkg, "dist", "cli.js"), ["--mode", "rpc", "--provider", "mock", "--model", "mock-1"], {
	cwd: work,
	env: home.env,
});
const run = async (message) => {
	await pi.pi("prompt", { message });
	await pi.waitFor((m) => m.type === "agent_end", "agent_end");
};
await run("Say hello");
await run("Read notes.txt");
await pi.pi("set_session_name", { name: "compat fixture" });
await pi.pi("bash", { command: "echo from-bash" });
await pi.pi("compact", {});
await run("Anything else?");
const state = await pi.pi("get_state");
const { messages } = await pi.pi("get_messages");
await pi.close();

copyFileSync(state.sessionFile, join(out, "basic.jsonl"));
writeFileSync(join(out, "basic.messages.json"), JSON.stringify(messages, null, 1) + "\n");

// branched.jsonl: pi's SessionManager on a copy of basic.jsonl.
const { SessionManager } = await import(pathToFileURL(join(pkg, "dist", "index.js")).href);
const scratch = tempDir("pi-branch-");
const file = join(scratch, "branched.jsonl");
copyFileSync(join(out, "basic.jsonl"), file);
const sm = SessionManager.open(file, scratch);
const entries = sm.getEntries();
const firstAssistant = entries.find((e) => e.type === "message" && e.message.role === "assistant");
const firstUser = entries.find((e) => e.type === "message" && e.message.role === "user");
sm.appendLabelChange(firstUser.id, "start");
sm.branch(firstAssistant.id);
sm.appendMessage({ role: "user", content: [{ type: "text", text: "Different question" }], timestamp: 1767225600000 });
sm.appendMessage({
	role: "assistant",
	content: [{ type: "text", text: "A different answer" }],
	api: "openai-completions",
	provider: "mock",
	model: "mock-1",
	usage: { input: 10, output: 3, cacheRead: 0, cacheWrite: 0, totalTokens: 13, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
	stopReason: "stop",
	timestamp: 1767225601000,
});
sm.appendCustomMessageEntry("note", "A custom note", true, { k: 1 });
sm.appendCustomEntry("ext-state", { counter: 2 });
sm.branchWithSummary(firstAssistant.id, "Summary of the abandoned branch", { readFiles: ["a.txt"], modifiedFiles: [] });
sm.appendLabelChange(firstAssistant.id, "fork point");
sm.appendThinkingLevelChange("high");
copyFileSync(file, join(out, "branched.jsonl"));
writeFileSync(join(out, "branched.messages.json"), JSON.stringify(sm.buildSessionContext().messages, null, 1) + "\n");
const ctx = sm.buildSessionContext();
writeFileSync(
	join(out, "branched.context.json"),
	JSON.stringify({ leafId: sm.getLeafId(), thinkingLevel: ctx.thinkingLevel, model: ctx.model, name: sm.getSessionName() }, null, 1) + "\n",
);
console.log(`wrote ${out}: basic.jsonl (${readFileSync(join(out, "basic.jsonl"), "utf8").split("\n").length - 1} lines), branched.jsonl`);
cleanup();
