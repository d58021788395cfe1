// make compat, Gemini: pi 1.6.0 and pi-rpc --mode rpc continue each other's Gemini sessions
// with the thought signatures intact.
//
//   node compat/compat-google.mjs <pi 1.6.0 package dir> <pi-rpc binary> <mock-openai binary>
//
// Run with a Node >= 22.19 first on PATH, as compat16.mjs. Each way, the writer runs a tool loop
// on a models.json provider with api "google-generative-ai" at bin/mock-openai --dialect google
// (behind a proxy here that records the request bodies): a signed thought and a signed
// functionCall for `read`, then signed text. The reader continues the file with --continue:
// its get_messages is the writer's, and its next request to Gemini carries every part of the
// writer's model turns with its thoughtSignature unchanged, on the same part. Every process
// and temp dir is removed at exit.
import { writeFileSync, readFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { RpcProcess, cleanup, compatArgs, fail, piEnv, startMock, tempDir } from "./pirpc.mjs";

const [pkg, piRpcBin, mockBin] = compatArgs("compat-google.mjs", "pi 1.6.0");

// Base64, as Gemini's signatures are (pi drops a signature that is not).
const sigThought = "c2lnLXRob3VnaHQ=";
const sigCall = "c2lnLWNhbGwvKzE=";
const sigText = "c2lnLXRleHQtMg==";
// The writer's model turns as the reader must send them back.
const wantModelTurns = [
	[
		{ text: "Read a.txt.", thought: true, thoughtSignature: sigThought },
		{ functionCall: { name: "read", args: { path: "a.txt" } }, thoughtSignature: sigCall },
	],
	[{ text: "It says alpha.", thoughtSignature: sigText }],
];

const piRpc = { name: "pi-rpc --mode rpc", cmd: piRpcBin };
const pi16 = { name: "pi 1.6.0", cmd: join(pkg, "dist", "cli.js") };
await crossRead(piRpc, pi16);
await crossRead(pi16, piRpc);
cleanup();

// startRecorder serves a proxy to the mock at target that keeps each request's decoded body.
async function startRecorder(target) {
	const bodies = [];
	const up = new URL(target);
	const server = createServer((req, res) => {
		const chunks = [];
		req.on("data", (c) => chunks.push(c));
		req.on("end", () => {
			const body = Buffer.concat(chunks);
			bodies.push(JSON.parse(body.toString("utf8") || "null"));
			const fwd = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
				res.writeHead(r.statusCode, r.headers);
				r.pipe(res);
			});
			fwd.on("error", (e) => {
				res.writeHead(502);
				res.end(String(e));
			});
			fwd.end(body);
		});
	});
	await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
	server.unref();
	return { url: `http://127.0.0.1:${server.address().port}${up.pathname}`, bodies, close: () => server.close() };
}

function writeModels(agent, url) {
	writeFileSync(
		join(agent, "models.json"),
		JSON.stringify({
			providers: {
				gem: {
					baseUrl: url,
					api: "google-generative-ai",
					apiKey: "GEM_KEY",
					models: [
						{
							id: "gemini-3-flash-preview",
							name: "Gemini 3 Flash (mock)",
							reasoning: true,
							input: ["text", "image"],
							contextWindow: 1048576,
							maxTokens: 65536,
							cost: { input: 0.5, output: 3, cacheRead: 0.05, cacheWrite: 0 },
						},
					],
				},
			},
		}),
	);
}

// start runs one program in pi mode in cwd with env's agent dir, on mock-openai --dialect
// google serving responses through a recorder.
async function start(prog, extra, cwd, env, responses) {
	const { url } = await startMock(mockBin, responses, ["--dialect", "google"]);
	const rec = await startRecorder(url);
	writeModels(env.agent, rec.url);
	const p = new RpcProcess(prog.cmd, ["--mode", "rpc", "--provider", "gem", "--model", "gemini-3-flash-preview", "--thinking", "low", ...extra], {
		cwd,
		env: { ...env.env, GEM_KEY: "gem-secret", GEMINI_API_KEY: "", GOOGLE_API_KEY: "" },
	});
	return { p, rec };
}

async function prompt(p, message) {
	await p.pi("prompt", { message });
	const s = await p.waitFor((m) => m.type === "agent_settled", "agent_settled", 60000);
	return s;
}

// modelTurns returns the parts of a request's model turns.
function modelTurns(body) {
	return (body?.contents ?? []).filter((c) => c.role === "model").map((c) => c.parts);
}

async function crossRead(writer, reader) {
	const cwd = tempDir("compat-google-work-");
	writeFileSync(join(cwd, "a.txt"), "alpha\n");
	const env = piEnv("http://127.0.0.1:9/v1beta");
	const w = await start(writer, [], cwd, env, [
		{
			events: [{ reasoning: "Read a.txt.", signature: sigThought }, { toolCall: { name: "read", arguments: '{"path":"a.txt"}', signature: sigCall } }],
			usage: { promptTokenCount: 1000, candidatesTokenCount: 20, thoughtsTokenCount: 80 },
		},
		{ text: "It says alpha.", signature: sigText, usage: { promptTokenCount: 1100, candidatesTokenCount: 5 } },
	]);
	await prompt(w.p, "What is in a.txt?");
	const state = await w.p.pi("get_state");
	const { messages: written } = await w.p.pi("get_messages");
	await w.p.close();
	w.rec.close();
	if (w.rec.bodies.length !== 2) fail(`${writer.name} sent ${w.rec.bodies.length} requests, want 2`);
	// pi 1.6.0's sessions start with a system message declaring the prompt and tools.
	const roles = written.map((m) => m.role).join(",");
	if (roles.replace(/^system,/, "") !== "user,assistant,toolResult,assistant") fail(`${writer.name}'s tool loop made ${roles}: ${JSON.stringify(written).slice(0, 1500)}`);
	const signed = written
		.filter((m) => m.role === "assistant")
		.flatMap((m) => m.content)
		.map((b) => [b.type, b.thinkingSignature ?? b.thoughtSignature ?? b.textSignature]);
	if (!isDeepStrictEqual(signed, [["thinking", sigThought], ["toolCall", sigCall], ["text", sigText]])) {
		fail(`${writer.name}'s assistant blocks carry signatures ${JSON.stringify(signed)}`);
	}
	// The writer itself sends the first model turn back signed in its second request.
	if (!isDeepStrictEqual(modelTurns(w.rec.bodies[1]).map(dropIds), wantModelTurns.slice(0, 1))) {
		fail(`${writer.name}'s second request's model turns: ${JSON.stringify(modelTurns(w.rec.bodies[1]))}`);
	}
	const file = state.sessionFile;
	if (!file) fail(`${writer.name} reported no session file`);
	const before = readFileSync(file, "utf8");

	const r = await start(reader, ["--continue"], cwd, env, [{ text: "Still alpha.", usage: { promptTokenCount: 1200, candidatesTokenCount: 3 } }]);
	const opened = await r.p.pi("get_state");
	if (opened.sessionFile !== file) fail(`${reader.name} --continue opened ${opened.sessionFile}, not ${writer.name}'s ${file}`);
	const { messages: read } = await r.p.pi("get_messages");
	if (!isDeepStrictEqual(read, written)) diff(`${reader.name} reads ${writer.name}'s Gemini session`, reader.name, read, writer.name, written);
	const settled = await prompt(r.p, "And now?");
	const { messages: after } = await r.p.pi("get_messages");
	await r.p.close();
	r.rec.close();
	if (settled.error || settled.errorMessage) fail(`${reader.name}'s continued prompt ended with ${JSON.stringify(settled)}`);
	if (!readFileSync(file, "utf8").startsWith(before)) fail(`${reader.name} rewrote ${writer.name}'s lines`);
	if (r.rec.bodies.length !== 1) fail(`${reader.name} sent ${r.rec.bodies.length} requests, want 1`);
	const got = modelTurns(r.rec.bodies[0]);
	if (!isDeepStrictEqual(got.map(dropIds), wantModelTurns)) {
		fail(`${reader.name}'s request after --continue has model turns\n ${JSON.stringify(got)}\n want\n ${JSON.stringify(wantModelTurns)}`);
	}
	const last = after.at(-1);
	if (last?.role !== "assistant" || last.content.map((b) => b.text).join("") !== "Still alpha.") fail(`${reader.name}'s reply: ${JSON.stringify(last)}`);
	console.log(
		`compat: ok: ${reader.name} continues a Gemini tool loop ${writer.name} wrote (the same ${written.length} messages; the thought, functionCall and text signatures go back unchanged)`,
	);
}

// dropIds removes functionCall ids, which pi sends only for models that require them.
function dropIds(parts) {
	return parts.map((p) => {
		if (!p.functionCall?.id) return p;
		const { id, ...call } = p.functionCall;
		return { ...p, functionCall: call };
	});
}

function diff(what, aName, a, bName, b) {
	for (let i = 0; i < Math.max(a.length, b.length); i++) {
		if (!isDeepStrictEqual(a[i], b[i])) {
			fail(`${what}: message ${i} differs:\n ${aName}: ${JSON.stringify(a[i])?.slice(0, 2000)}\n ${bName}: ${JSON.stringify(b[i])?.slice(0, 2000)}`);
		}
	}
}
