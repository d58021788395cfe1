// make compat: pi 0.73.1 reads a session file written by pi-rpc and projects it to the same
// model context.
//
//   node compat/compat.mjs <pi package dir> <pi-rpc binary> <mock-openai binary>
//
// pi-rpc (faux provider) writes a session with a tool call and its result, a session name, a
// label, a branch made with navigateTree and a reply on it. Then pi --mode rpc --session FILE
// (offline, its own models.json pointing at mock-openai) answers get_messages, which must
// equal pi-rpc's getMessages. Then, in pi mode, each continues a session the other wrote:
// pi-rpc --mode rpc writes one (a tool call and its result, a reply) into pi's agent dir layout,
// pi --mode rpc --continue in the same directory finds it, prompts once more, and appends to
// it; the reverse with pi writing first. Each time the writer's lines stay as they were, the new
// entries chain from the writer's leaf, and both programs project the continued file to the
// same messages. Every process and temp dir is removed at exit.
import { readFileSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { RpcProcess, cleanup, compatArgs, fail, modelsJSON, piEnv, startMock, tempDir } from "./pirpc.mjs";

const [pkg, piRpcBin, mockBin] = compatArgs("compat.mjs", "pi");

const work = tempDir("compat-work-");
const home = tempDir("compat-home-");
writeFileSync(join(work, "notes.txt"), "buy milk\n");
const script = join(home, "faux.json");
writeFileSync(
	script,
	JSON.stringify({
		responses: [
			{ content: [{ type: "text", text: "Let me read it." }, { type: "toolCall", id: "call_1", name: "read", arguments: { path: "notes.txt" } }] },
			{ content: [{ type: "text", text: "It says: buy milk." }], usage: { input: 50, output: 6 } },
			{ content: [{ type: "text", text: "Second answer." }] },
			{ content: [{ type: "text", text: "Answer on the new branch." }] },
		],
	}),
);

const rpc = new RpcProcess(piRpcBin, ["--provider", "faux", "--faux-script", script, "--cwd", work, "--approval", "auto"], {
	env: { ...process.env, PI_RPC_HOME: home, OPENAI_API_KEY: "" },
});
const settle = () => rpc.waitFor((m) => m.method === "event" && m.params.type === "agent_settled", "agent_settled");
await rpc.call("initialize", {});
await rpc.call("prompt", { message: "Read notes.txt" });
await settle();
await rpc.call("prompt", { message: "And then?" });
await settle();
await rpc.call("setSessionName", { name: "compat" });
const tree = await rpc.call("getTree");
const users = tree.nodes.filter((n) => n.role === "user");
await rpc.call("setLabel", { entryId: users[0].id, label: "first" });
await rpc.call("navigateTree", { entryId: users[1].id });
await rpc.call("prompt", { message: "A different follow-up" });
await settle();
const { messages: want } = await rpc.call("getMessages");
const { sessionFile } = await rpc.call("getState");
await rpc.call("shutdown");
rpc.send({ jsonrpc: "2.0", method: "exit" });
await rpc.close();
if (!sessionFile) fail("pi-rpc reported no session file");

const { url } = await startMock(mockBin, []);
const env = piEnv(url);
const pi = new RpcProcess(join(pkg, "dist", "cli.js"), ["--mode", "rpc", "--session", sessionFile, "--provider", "mock", "--model", "mock-1"], {
	cwd: work,
	env: env.env,
});
const { messages: got } = await pi.pi("get_messages");
await pi.close();

if (!isDeepStrictEqual(got, want)) {
	for (let i = 0; i < Math.max(got.length, want.length); i++) {
		if (!isDeepStrictEqual(got[i], want[i])) {
			fail(`message ${i} differs:\n pi:     ${JSON.stringify(got[i])}\n pi-rpc: ${JSON.stringify(want[i])}`);
		}
	}
}
console.log(`compat: ok: pi 0.73.1 projects pi-rpc's session (${want.length} messages, branched, labelled, named) exactly as pi-rpc does`);

// Cross-reading in pi mode: each program continues, with --continue in pi's session dir layout,
// a session the other wrote, and both then project the continued file to the same messages.
await crossRead("pi-rpc --mode rpc", piRpcCmd, "pi 0.73.1", piCmd);
await crossRead("pi 0.73.1", piCmd, "pi-rpc --mode rpc", piRpcCmd);
cleanup();

// The two commands in pi mode, each with a settle signal: pi-rpc's agent_settled, pi's
// agent_end (pi 0.73.1 has no agent_settled).
function piRpcCmd(args) {
	return { cmd: piRpcBin, args: ["--mode", "rpc", ...args], done: "agent_settled" };
}
function piCmd(args) {
	return { cmd: join(pkg, "dist", "cli.js"), args: ["--mode", "rpc", ...args], done: "agent_end" };
}

// runPi starts one of them in cwd with the agent dir of env on its own mock (responses), runs
// the prompts, and returns its state and get_messages before it exits.
async function runPi(make, extra, cwd, env, responses, prompts) {
	const { url } = await startMock(mockBin, responses);
	writeFileSync(join(env.agent, "models.json"), modelsJSON(url));
	const { cmd, args, done } = make(["--provider", "mock", "--model", "mock-1", ...extra]);
	const p = new RpcProcess(cmd, args, { cwd, env: env.env });
	for (const message of prompts) {
		await p.pi("prompt", { message });
		await p.waitFor((m) => m.type === done, done);
	}
	const state = await p.pi("get_state");
	const { messages } = await p.pi("get_messages");
	await p.close();
	return { state, messages };
}

// readOnly opens file with make (no prompt) and returns its projection.
async function readOnly(make, cwd, env, file) {
	const { cmd, args } = make(["--provider", "mock", "--model", "mock-1", "--session", file]);
	const p = new RpcProcess(cmd, args, { cwd, env: env.env });
	const { messages } = await p.pi("get_messages");
	await p.close();
	return messages;
}

async function crossRead(writerName, writer, readerName, reader) {
	const cwd = tempDir("compat-cross-work-");
	writeFileSync(join(cwd, "notes.txt"), "buy milk\n");
	const env = piEnv("http://127.0.0.1:9/v1");
	const first = await runPi(writer, [], cwd, env, [
		{ toolCalls: [{ id: "call_read_1", name: "read", arguments: JSON.stringify({ path: "notes.txt" }) }], usage: { prompt_tokens: 40, completion_tokens: 6 } },
		{ text: "The notes say: buy milk.", usage: { prompt_tokens: 60, completion_tokens: 7 } },
	], ["Read notes.txt"]);
	const file = first.state.sessionFile;
	if (!file) fail(`${writerName} reported no session file`);
	const encodedDir = join(env.agent, "sessions");
	if (!file.startsWith(encodedDir + "/")) fail(`${writerName} wrote ${file}, outside pi's ${encodedDir}/<encoded cwd>/`);
	const before = readFileSync(file, "utf8");
	const beforeLines = before.trimEnd().split("\n");
	const leaf = JSON.parse(beforeLines.at(-1)).id;

	const second = await runPi(reader, ["--continue"], cwd, env, [{ text: "Nothing else.", usage: { prompt_tokens: 80, completion_tokens: 3 } }], ["Anything else?"]);
	if (second.state.sessionFile !== file) fail(`${readerName} --continue opened ${second.state.sessionFile}, not ${writerName}'s ${file}`);
	if (second.state.sessionId !== first.state.sessionId) fail(`${readerName} --continue has session id ${second.state.sessionId}, want ${first.state.sessionId}`);
	const after = readFileSync(file, "utf8");
	if (!after.startsWith(before)) fail(`${readerName} rewrote ${writerName}'s lines`);
	const added = after.slice(before.length).trimEnd().split("\n").map((l) => JSON.parse(l));
	if (added[0].parentId !== leaf) fail(`${readerName}'s first entry has parent ${added[0].parentId}, want ${writerName}'s leaf ${leaf}`);
	const prefix = second.messages.slice(0, first.messages.length);
	if (!isDeepStrictEqual(prefix, first.messages)) fail(`${readerName} continued ${writerName}'s session with other messages:\n ${JSON.stringify(prefix)}\n ${JSON.stringify(first.messages)}`);
	let tail = second.messages.slice(first.messages.length);
	// pi mode declares the prompt and tools of a session that has no declaration yet (pi
	// 0.73.1's) with a system message before its first prompt, as pi 1.6.0 does.
	if (reader === piRpcCmd && tail[0]?.role === "system") tail = tail.slice(1);
	const roles = tail.map((m) => m.role).join(",");
	if (roles !== "user,assistant") fail(`${readerName} added ${roles}, want user,assistant`);
	if (tail[1].content.map((c) => c.text).join("") !== "Nothing else.") fail(`${readerName}'s reply is ${JSON.stringify(tail[1].content)}`);
	// The writer reads the continued file back to what the reader saw.
	const back = await readOnly(writer, cwd, env, file);
	if (!isDeepStrictEqual(back, second.messages)) {
		for (let i = 0; i < Math.max(back.length, second.messages.length); i++) {
			if (!isDeepStrictEqual(back[i], second.messages[i])) {
				fail(`message ${i} of the continued file differs:\n ${writerName}: ${JSON.stringify(back[i])}\n ${readerName}: ${JSON.stringify(second.messages[i])}`);
			}
		}
	}
	console.log(`compat: ok: ${readerName} continues a session ${writerName} wrote (--continue, pi's layout; ${second.messages.length} messages, the same to both)`);
}
