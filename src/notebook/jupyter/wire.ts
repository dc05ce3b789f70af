/**
 * Jupyter's wire format (https://jupyter-client.readthedocs.io/en/stable/messaging.html#the-wire-protocol):
 * a message is the ZMQ routing identities, the `<IDS|MSG>` delimiter, the HMAC-SHA256 signature (hex)
 * of the four JSON parts that follow — header, parent header, metadata, content — then those parts and
 * any binary buffers.
 */
import { createHmac, randomUUID, timingSafeEqual } from "node:crypto";

export const DELIMITER = "<IDS|MSG>";
export const PROTOCOL_VERSION = "5.3";

export interface Header {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export interface Message<C = Record<string, unknown>> {
  header: Header;
  parent_header: Partial<Header>;
  metadata: Record<string, unknown>;
  content: C;
  buffers?: Buffer[];
}

/** The signature of a message's four JSON parts with `key` (hex; empty when there is no key). */
export function sign(key: string, parts: readonly Buffer[]): string {
  if (!key) return "";
  const hmac = createHmac("sha256", key);
  for (const p of parts) hmac.update(p);
  return hmac.digest("hex");
}

/** A new message of `msgType` in `session`, answering `parent` when given. */
export function newMessage<C>(msgType: string, content: C, session: string, parent?: Header): Message<C> {
  return {
    header: {
      msg_id: randomUUID(),
      msg_type: msgType,
      session,
      username: "risk-portal-lab",
      date: new Date().toISOString(),
      version: PROTOCOL_VERSION,
    },
    parent_header: parent ?? {},
    metadata: {},
    content,
  };
}

/** The frames of `message`, signed with `key`. */
export function encodeMessage(message: Message<unknown>, key: string, identities: readonly Buffer[] = []): Buffer[] {
  const parts = [message.header, message.parent_header, message.metadata, message.content].map((p) =>
    Buffer.from(JSON.stringify(p), "utf8"),
  );
  return [...identities, Buffer.from(DELIMITER), Buffer.from(sign(key, parts)), ...parts, ...(message.buffers ?? [])];
}

/** Reads the frames of one message; throws when the delimiter is missing or the signature is wrong. */
export function decodeMessage(frames: readonly Buffer[], key: string): Message & { identities: Buffer[] } {
  const at = frames.findIndex((f) => f.length === DELIMITER.length && f.toString("latin1") === DELIMITER);
  if (at < 0 || frames.length < at + 6)
    throw new Error(`not a Jupyter message: ${at < 0 ? "no <IDS|MSG> delimiter" : "fewer than 4 parts after it"}`);
  const parts = frames.slice(at + 2, at + 6);
  const expected = Buffer.from(sign(key, parts), "latin1");
  const given = frames[at + 1]!;
  if (key && !(given.length === expected.length && timingSafeEqual(given, expected)))
    throw new Error("a Jupyter message with a wrong signature (HMAC-SHA256)");
  const [header, parent, metadata, content] = parts.map(
    (p) => JSON.parse(p.toString("utf8")) as Record<string, unknown>,
  );
  return {
    identities: frames.slice(0, at),
    header: header as unknown as Header,
    parent_header: parent as Partial<Header>,
    metadata: metadata!,
    content: content!,
    buffers: frames.slice(at + 6),
  };
}
