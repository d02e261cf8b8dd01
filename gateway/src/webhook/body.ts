import { isUtf8 } from "node:buffer";
import type { IncomingMessage } from "node:http";
import { jsonDepth } from "@tocsin/core";

/** Largest webhook body read, in bytes. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of objects/arrays accepted. */
export const MAX_DEPTH = 100;

/** Why a body was refused: `too_large` → 413, the rest → 400. */
type BodyProblem = { kind: "too_large" } | { kind: "invalid"; message: string };

export type ReadResult = { ok: true; bytes: Buffer } | { ok: false; problem: BodyProblem };

/**
 * Reads the request body, never past `limit` bytes: a Content-Length over the limit is refused
 * before reading, and a streamed body is abandoned as soon as the counter passes it.
 */
export function readBoundedBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<ReadResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    return Promise.resolve(
      /^\d+$/.test(declared)
        ? { ok: false, problem: { kind: "too_large" } }
        : { ok: false, problem: { kind: "invalid", message: "Content-Length is invalid" } },
    );
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: ReadResult) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        finish({ ok: false, problem: { kind: "too_large" } });
      } else chunks.push(chunk);
    };
    // A small body usually arrives in one chunk: no copy then.
    const onEnd = () => finish({ ok: true, bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, problem: { kind: "invalid", message: "the request body could not be read" } });
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}

/** `application/json` (any parameters) or a `+json` type. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const type = (header.split(";")[0] as string).trim().toLowerCase();
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

export type ParseResult = { ok: true; text: string; value: Record<string, unknown> } | { ok: false; message: string };

/** UTF-8 JSON text of an object no deeper than MAX_DEPTH; each failure says what is wrong. */
export function parseJsonObject(bytes: Buffer): ParseResult {
  if (bytes.length === 0) return { ok: false, message: "The request body is empty: send a JSON object" };
  if (!isUtf8(bytes)) return { ok: false, message: "The request body is not valid UTF-8" };
  // A leading byte order mark is dropped, as a UTF-8 TextDecoder does.
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const text = bytes.toString("utf8", bom ? 3 : 0);
  if (jsonDepth(text, MAX_DEPTH) > MAX_DEPTH)
    return { ok: false, message: `The JSON body is nested deeper than ${MAX_DEPTH} levels` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: "The request body is not valid JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, message: "The JSON body must be an object" };
  }
  return { ok: true, text, value: value as Record<string, unknown> };
}
