/** Reads a fixture of fixtures/frames (a fresh copy each time, so a test may change it). */
import { readFileSync } from "node:fs";
import path from "node:path";

export const FIXTURES = path.resolve(__dirname, "../../../fixtures/frames");

export function fixture<T = unknown>(name: string): T {
  return JSON.parse(readFileSync(path.join(FIXTURES, name), "utf8")) as T;
}

export function fixturePath(name: string): string {
  return path.join(FIXTURES, name);
}
