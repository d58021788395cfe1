// make compat: pi 0.73.1 reads a session file written by pi-rpc and projects it to the same
// model context.
//
//   node compat/compat.mjs <pi package dir> <pi-rpc binary> <mock-openai binary>
//
// pi-rpc (faux provider) writes a session with a tool call and its result, a session name, a
// label, a branch made with navigateTree and a reply on it. Then pi --mode rpc --session FILE
// (offline, its own models.json pointing at mock-openai) answers get_messages, which must
// equal pi-rpc's getMessages. Every process and temp dir is removed at exit.
import { writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { RpcProcess, cleanup, piEnv, startMock, tempDir } from "./pirpc.mjs";

const [pkg, piRpcBin, mockBin] = process.argv.slice(2);
if (!pkg || !piRpcBin || !mockBin) {
	console.error("usage: compat.mjs <pi package dir> <pi-rpc> <mock-openai>");
	process.exit(2);
}

function fail(msg) {
	console.error(`compat: FAIL: ${msg}`);
	cleanup();
	process.exit(1);
}

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
cleanup();
