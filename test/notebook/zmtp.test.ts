/**
 * The Jupyter client under the Deno runner, piece by piece: ZMTP frames (short and long, split across
 * TCP chunks), READY's properties, the subscription a SUB socket sends to a ZMTP 3.0 peer (a message
 * whose first byte is 1) and to a 3.1 peer (a SUBSCRIBE command), checked against a peer on a real
 * socket; the wire format's HMAC-SHA256 signature (a tampered message is refused); then the real Deno
 * kernel: started from a connection file of ours, it answers kernel_info_request, its execute_request
 * publishes on iopub, and shutdown kills it and removes the connection file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findDeno } from "../../src/notebook/jupyter/find-deno";
import { JupyterKernel } from "../../src/notebook/jupyter/kernel";
import { decodeMessage, encodeMessage, newMessage, type Message } from "../../src/notebook/jupyter/wire";
import {
  ByteQueue,
  commandBody,
  decodeProperties,
  encodeFrame,
  encodeProperties,
  readFrame,
  ZmtpSocket,
} from "../../src/notebook/jupyter/zmtp";
import { root } from "./executed";

describe("ZMTP frames", () => {
  it("a short frame has a 1-byte size, a long one (> 255 bytes) an 8-byte size; flags say MORE and COMMAND", () => {
    expect([...encodeFrame(Buffer.from("abc"), true)]).toEqual([0x01, 3, 0x61, 0x62, 0x63]);
    expect([...encodeFrame(Buffer.from("R"), false, true)]).toEqual([0x04, 1, 0x52]);
    const long = encodeFrame(Buffer.alloc(300, 7), false);
    expect(long[0]).toBe(0x02);
    expect(long.readBigUInt64BE(1)).toBe(300n);
    expect(long.length).toBe(309);
  });

  it("frames read back whole however the bytes are chunked, a 5 MB frame included", () => {
    const big = Buffer.alloc(5_000_000, 0x61);
    const bytes = Buffer.concat([
      encodeFrame(Buffer.from("one"), true),
      encodeFrame(big, false),
      encodeFrame(Buffer.alloc(0), false),
    ]);
    const queue = new ByteQueue();
    const frames = [];
    for (let at = 0; at < bytes.length; at += 65_521) {
      queue.push(bytes.subarray(at, at + 65_521));
      for (let f = readFrame(queue); f; f = readFrame(queue)) frames.push(f);
    }
    expect(frames.map((f) => [f.body.length, f.more])).toEqual([
      [3, true],
      [5_000_000, false],
      [0, false],
    ]);
    expect(frames[1]!.body.equals(big)).toBe(true);
    expect(queue.length).toBe(0);
  });

  it("READY's properties read back", () => {
    const props = { "Socket-Type": "DEALER", Identity: "" };
    expect(decodeProperties(encodeProperties(props))).toEqual(props);
    const body = commandBody("READY", encodeProperties({ "Socket-Type": "SUB" }));
    expect(body.subarray(1, 6).toString()).toBe("READY");
  });
});

/**
 * A PUB peer speaking ZMTP 3.`minor` on a real socket: it answers the greeting and READY, and resolves
 * with the first frame the client sends after its READY (the subscription).
 */
function pubPeer(
  minor: number,
): Promise<{ port: number; subscription: Promise<{ command: boolean; body: Buffer }>; close: () => void }> {
  return new Promise((resolve) => {
    let got!: (f: { command: boolean; body: Buffer }) => void;
    const subscription = new Promise<{ command: boolean; body: Buffer }>((r) => (got = r));
    const server = net.createServer((socket) => {
      const greeting = Buffer.alloc(64);
      greeting[0] = 0xff;
      greeting[9] = 0x7f;
      greeting[10] = 3;
      greeting[11] = minor;
      greeting.write("NULL", 12);
      socket.write(greeting);
      socket.write(encodeFrame(commandBody("READY", encodeProperties({ "Socket-Type": "PUB" })), false, true));
      const queue = new ByteQueue();
      let skipped = false;
      let frames = 0;
      socket.on("data", (chunk: Buffer) => {
        queue.push(chunk);
        if (!skipped && queue.length >= 64) {
          queue.take(64);
          skipped = true;
        }
        for (let f = skipped ? readFrame(queue) : undefined; f; f = readFrame(queue)) if (++frames === 2) got(f); // frame 1 is READY
      });
    });
    server.listen(0, "127.0.0.1", () => {
      resolve({ port: (server.address() as net.AddressInfo).port, subscription, close: () => server.close() });
    });
  });
}

describe("a SUB socket subscribes to everything, in the peer's ZMTP version", () => {
  it("to a ZMTP 3.0 peer (Deno's kernel): a message whose body is the byte 1", async () => {
    const peer = await pubPeer(0);
    const sub = await ZmtpSocket.connect({ host: "127.0.0.1", port: peer.port, type: "SUB" });
    const f = await peer.subscription;
    expect(sub.peer).toMatchObject({ major: 3, minor: 0, properties: { "Socket-Type": "PUB" } });
    expect(f.command).toBe(false);
    expect([...f.body]).toEqual([1]);
    sub.close();
    peer.close();
  });

  it("to a ZMTP 3.1 peer: a SUBSCRIBE command with an empty topic", async () => {
    const peer = await pubPeer(1);
    const sub = await ZmtpSocket.connect({ host: "127.0.0.1", port: peer.port, type: "SUB" });
    const f = await peer.subscription;
    expect(f.command).toBe(true);
    expect(f.body.toString("latin1")).toBe("\u0009SUBSCRIBE");
    sub.close();
    peer.close();
  });
});

describe("Jupyter's wire format", () => {
  const key = "a1b2c3";
  it("signs header, parent, metadata and content with HMAC-SHA256 and reads them back", () => {
    const m = newMessage("execute_request", { code: "1 + 1" }, "session-1");
    const frames = encodeMessage(m, key, [Buffer.from("id-1")]);
    expect(frames[1]!.toString()).toBe("<IDS|MSG>");
    expect(frames[2]!.toString()).toMatch(/^[0-9a-f]{64}$/);
    const back = decodeMessage(frames, key);
    expect(back.identities.map(String)).toEqual(["id-1"]);
    expect(back.header).toEqual(m.header);
    expect(back.content).toEqual({ code: "1 + 1" });
  });

  it("refuses a message whose content was changed, or signed with another key", () => {
    const frames = encodeMessage(newMessage("stream", { text: "a" }, "s"), key);
    const tampered = [...frames];
    tampered[5] = Buffer.from(JSON.stringify({ text: "b" }));
    expect(() => decodeMessage(tampered, key)).toThrow("wrong signature");
    expect(() => decodeMessage(frames, "another-key")).toThrow("wrong signature");
    expect(() => decodeMessage([Buffer.from("x")], key)).toThrow("no <IDS|MSG> delimiter");
  });
});

describe("the real Deno kernel, spoken to directly", () => {
  it("answers kernel_info_request, publishes an execute_request's outputs, and goes away on shutdown", async () => {
    const deno = findDeno({ dirs: [root] });
    const kernel = await JupyterKernel.start({
      argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
      cwd: root,
      env: process.env,
    });
    expect(JSON.parse(readFileSync(kernel.connectionFile, "utf8"))).toMatchObject({
      transport: "tcp",
      ip: "127.0.0.1",
      signature_scheme: "hmac-sha256",
    });
    const info = await kernel.request("shell", "kernel_info_request", {}).reply;
    expect(info.header.msg_type).toBe("kernel_info_reply");
    expect((info.content as { language_info: { name: string } }).language_info.name).toBe("typescript");
    const published: Message[] = [];
    kernel.on("iopub", (m: Message) => published.push(m));
    const run = kernel.execute('console.log("from the kernel"); 6 * 7');
    const reply = await run.reply;
    expect(reply.content.status).toBe("ok");
    await expect
      .poll(() => published.filter((m) => m.parent_header.msg_id === run.msgId).map((m) => m.header.msg_type))
      .toContain("execute_result");
    const mineOut = published.filter((m) => m.parent_header.msg_id === run.msgId);
    expect(mineOut.find((m) => m.header.msg_type === "stream")?.content.text).toBe("from the kernel\n");
    await kernel.shutdown();
    expect(existsSync(kernel.connectionFile)).toBe(false);
    expect(existsSync(path.dirname(kernel.connectionFile))).toBe(false);
    await expect(kernel.request("shell", "kernel_info_request", {}).reply).rejects.toThrow("has exited");
  }, 30_000);

  it("is started again on fresh ports when its port was taken before it bound it (Address already in use)", async () => {
    // A kernel command whose first start fails as Deno's does when another process took a port between
    // the connection file's writing and the kernel's bind; the second start is the real kernel.
    const dir = mkdtempSync(path.join(tmpdir(), "rpl-addr-in-use-"));
    try {
      const starts = path.join(dir, "starts");
      const script = path.join(dir, "kernel.cjs");
      writeFileSync(
        script,
        `const fs = require("node:fs");
fs.appendFileSync(${JSON.stringify(starts)}, "x");
if (fs.readFileSync(${JSON.stringify(starts)}, "utf8").length === 1) {
  process.stderr.write("error: Uncaught (in promise) AddrInUse: Address already in use (os error 98)\\n");
  process.exit(1);
}
const child = require("node:child_process").spawn(process.argv[2], process.argv.slice(3), { stdio: "inherit" });
child.on("exit", (code) => process.exit(code ?? 1));`,
      );
      const deno = findDeno({ dirs: [root] });
      const kernel = await JupyterKernel.start({
        argv: [process.execPath, script, deno, "jupyter", "--kernel", "--conn", "{connection_file}"],
        cwd: root,
        env: process.env,
      });
      expect(readFileSync(starts, "utf8")).toBe("xx");
      const info = await kernel.request("shell", "kernel_info_request", {}).reply;
      expect(info.header.msg_type).toBe("kernel_info_reply");
      await kernel.shutdown();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
