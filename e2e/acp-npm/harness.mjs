// Shared by the ACP TypeScript SDK tests: starts pi-rpc --protocol acp against the mock model
// (PI_RPC_BIN, MOCK_URL and HOME from the Go test), validates every line the agent writes
// with the SDK's own zod schemas, and connects the SDK's client to it.
import { spawn } from "node:child_process";
import * as acp from "@agentclientprotocol/sdk";
import * as z from "./node_modules/@agentclientprotocol/sdk/dist/v1/schema/zod.gen.js";

const responseSchemas = {
  initialize: z.zInitializeResponse, "session/new": z.zNewSessionResponse, "session/prompt": z.zPromptResponse,
  "session/close": z.zCloseSessionResponse, "session/set_mode": z.zSetSessionModeResponse,
  "session/load": z.zLoadSessionResponse, "session/list": z.zListSessionsResponse,
};

// requestSchemas validate what the agent sends by method: notifications and its requests to
// the client.
const requestSchemas = {
  "session/update": z.zSessionNotification,
  "session/request_permission": z.zRequestPermissionRequest,
  "fs/read_text_file": z.zReadTextFileRequest,
  "fs/write_text_file": z.zWriteTextFileRequest,
};

// startAgent spawns the agent and returns { child, wire, stream }: wire collects every
// message written (already validated), stream is the SDK's ndJsonStream to connect.
export function startAgent() {
  const child = spawn(process.env.PI_RPC_BIN, ["--protocol", "acp", "--provider", "openai", "--base-url", process.env.MOCK_URL, "--model", "gpt-4.1"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PI_RPC_HOME: process.env.HOME, OPENAI_API_KEY: "test" },
  });
  const sent = new Map();
  const wire = [];
  let buf = "";
  child.stdout.on("data", (chunk) => {
    buf += chunk.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line);
      wire.push(msg);
      const request = requestSchemas[msg.method];
      if (request) request.parse(msg.params);
      else if (msg.method === undefined && msg.result !== undefined) {
        const schema = responseSchemas[sent.get(JSON.stringify(msg.id))];
        if (schema) schema.parse(msg.result);
      }
    }
  });
  const toAgent = new WritableStream({
    write(chunk) {
      for (const line of Buffer.from(chunk).toString("utf8").split("\n")) {
        if (!line) continue;
        const m = JSON.parse(line);
        if (m.method && m.id !== undefined) sent.set(JSON.stringify(m.id), m.method);
      }
      return new Promise((res, rej) => child.stdin.write(chunk, (e) => (e ? rej(e) : res())));
    },
  });
  let closed = () => {};
  const fromAgent = new ReadableStream({
    cancel() { closed(); },
    start(controller) {
      let open = true;
      child.stdout.on("data", (c) => open && controller.enqueue(new Uint8Array(c)));
      child.stdout.on("end", () => open && controller.close());
      closed = () => { open = false; };
    },
  });
  return { child, wire, stream: acp.ndJsonStream(toAgent, fromAgent) };
}

// stopAgent closes the agent's stdin and waits for it to exit.
export async function stopAgent(child) {
  child.stdin.end();
  await new Promise((res) => child.on("exit", res));
}
