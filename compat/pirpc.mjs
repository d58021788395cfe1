// Helpers shared by the compat scripts: temp dirs, the mock OpenAI server, and a pi RPC
// client (pi --mode rpc, JSON lines on stdio).
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const children = new Set();
const dirs = new Set();

// cleanup kills every child this process started and removes its temp dirs.
export function cleanup() {
	for (const c of children) {
		try {
			c.kill("SIGKILL");
		} catch {}
	}
	children.clear();
	for (const d of dirs) rmSync(d, { recursive: true, force: true });
	dirs.clear();
}
for (const sig of ["SIGINT", "SIGTERM"]) {
	process.on(sig, () => {
		cleanup();
		process.exit(1);
	});
}
process.on("exit", cleanup);

// fail ends a compat script with its failure, after the servers it started are stopped.
export function fail(msg) {
	console.error(`compat: FAIL: ${msg}`);
	cleanup();
	process.exit(1);
}

// compatArgs reads a compat script's three arguments as absolute paths (the pi-mode runs start
// in their own working directories): pi's package dir, pi-rpc and mock-openai.
export function compatArgs(script, piName) {
	if (process.argv.length !== 5) {
		console.error(`usage: ${script} <${piName} package dir> <pi-rpc> <mock-openai>`);
		process.exit(2);
	}
	return process.argv.slice(2).map((p) => resolve(p));
}

export function tempDir(prefix) {
	const d = mkdtempSync(join(tmpdir(), prefix));
	dirs.add(d);
	return d;
}

function track(child) {
	children.add(child);
	child.on("exit", () => children.delete(child));
	return child;
}

// startMock runs bin/mock-openai on a script, with args before it (["--dialect", "google"]
// for Gemini's wire), and resolves to its base URL.
export async function startMock(bin, script, args = []) {
	const dir = tempDir("mock-");
	const file = join(dir, "script.json");
	writeFileSync(file, JSON.stringify({ responses: script }));
	const child = track(spawn(bin, [...args, "--script", file], { stdio: ["pipe", "pipe", "inherit"] }));
	const rl = createInterface({ input: child.stdout });
	const url = await new Promise((resolve, reject) => {
		rl.once("line", resolve);
		child.once("exit", (code) => reject(new Error(`${bin} exited ${code}`)));
	});
	return { url, child };
}

// modelsJSON is pi's models.json with one provider, "mock", at url: an OpenAI-compatible
// server (mock-openai) serving model mock-1.
export function modelsJSON(url) {
	return JSON.stringify({
		providers: {
			mock: {
				baseUrl: url,
				api: "openai-completions",
				apiKey: "test-key",
				compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
				models: [{ id: "mock-1", name: "Mock 1", contextWindow: 128000, maxTokens: 4096 }],
			},
		},
	});
}

// piEnv makes an isolated pi home: agent dir with models.json (provider "mock" at url) and
// settings, HOME, offline.
export function piEnv(url, settings = {}) {
	const root = tempDir("pi-home-");
	const agent = join(root, "agent");
	mkdirSync(agent, { recursive: true });
	writeFileSync(join(agent, "models.json"), modelsJSON(url));
	writeFileSync(join(agent, "settings.json"), JSON.stringify(settings));
	return {
		root,
		agent,
		env: { ...process.env, HOME: root, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: "1", OPENAI_API_KEY: "" },
	};
}

// RpcProcess speaks a JSON-lines protocol with a child: pi's ({id, type, ...} commands,
// {type:"response"} answers) or pi-rpc's (JSON-RPC 2.0).
export class RpcProcess {
	constructor(cmd, args, opts) {
		this.child = track(spawn(cmd, args, { ...opts, stdio: ["pipe", "pipe", "pipe"] }));
		this.stderr = "";
		this.child.stderr.on("data", (d) => (this.stderr += d));
		this.waiters = [];
		this.events = [];
		this.nextId = 1;
		const rl = createInterface({ input: this.child.stdout });
		rl.on("line", (line) => {
			let msg;
			try {
				msg = JSON.parse(line);
			} catch {
				return;
			}
			this.events.push(msg);
			for (const w of [...this.waiters]) {
				if (w.match(msg)) {
					this.waiters.splice(this.waiters.indexOf(w), 1);
					w.resolve(msg);
				}
			}
		});
		this.exited = new Promise((resolve) => this.child.once("exit", resolve));
	}

	waitFor(match, what, ms = 30000) {
		const found = this.events.find(match);
		if (found) {
			this.events.splice(this.events.indexOf(found), 1);
			return Promise.resolve(found);
		}
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`)), ms);
			this.waiters.push({
				match,
				resolve: (m) => {
					clearTimeout(timer);
					this.events.splice(this.events.indexOf(m), 1);
					resolve(m);
				},
			});
		});
	}

	send(obj) {
		this.child.stdin.write(JSON.stringify(obj) + "\n");
	}

	// pi: a command and its response.
	async pi(type, fields = {}) {
		const id = String(this.nextId++);
		this.send({ id, type, ...fields });
		const r = await this.waitFor((m) => m.type === "response" && m.id === id, `pi ${type}`);
		if (!r.success) throw new Error(`pi ${type}: ${r.error}`);
		return r.data;
	}

	// pi-rpc: a JSON-RPC request and its result.
	async call(method, params = {}) {
		const id = this.nextId++;
		this.send({ jsonrpc: "2.0", id, method, params });
		const r = await this.waitFor((m) => m.id === id && (m.result !== undefined || m.error !== undefined), `pi-rpc ${method}`);
		if (r.error) throw new Error(`pi-rpc ${method}: ${JSON.stringify(r.error)}`);
		return r.result;
	}

	async close() {
		this.child.stdin.end();
		const t = setTimeout(() => this.child.kill("SIGKILL"), 5000);
		await this.exited;
		clearTimeout(t);
	}
}
