import { describe, expect, it } from "vitest";
import { apiKeys, apiKeysColumns, maskSecret } from "../../src/frames/api-keys";
import { fixture } from "./helpers/fixtures";

const keys = () => fixture<Parameters<typeof apiKeysColumns>[0]>("api-keys.json");

describe("apiKeysColumns(entries)", () => {
  it("masks the key values to their last 4 characters by default", () => {
    const t = apiKeysColumns(keys());
    expect(t.columns).toEqual(["id", "name", "exposed_value", "created", "refresh_token"]);
    expect(t.data.exposed_value).toEqual(["••••2b1c", "••••8c9d", "••••"]);
    expect(JSON.stringify(t.data)).not.toContain("rpk_live_4f9a8b7c6d5e4f3a2b1c");
  });

  it("masks extra fields named like secrets too, and keeps the others (dates as Date)", () => {
    const t = apiKeysColumns(keys());
    expect(t.data.refresh_token).toEqual([null, "••••5b4a", null]);
    expect(t.kinds.created).toBe("date");
    expect(t.data.name).toEqual(["notebook", null, "short"]);
  });

  it("shows the values in full only when asked explicitly", () => {
    const t = apiKeysColumns(keys(), { reveal: true });
    expect(t.data.exposed_value).toEqual(["rpk_live_4f9a8b7c6d5e4f3a2b1c", "rpk_live_0a1b2c3d4e5f6a7b8c9d", "abc"]);
  });

  it("apiKeys is the DataFrame, masked too", () => {
    const df = apiKeys(keys());
    expect(df.column("exposed_value").values).toEqual(["••••2b1c", "••••8c9d", "••••"]);
    expect(apiKeys([]).shape).toEqual([0, 3]);
  });
});

describe("maskSecret(value)", () => {
  it("keeps the last 4 characters and hides short values whole", () => {
    expect(maskSecret("rpk_live_1a2b")).toBe("••••1a2b");
    expect(maskSecret("1a2b")).toBe("••••");
    expect(maskSecret("")).toBe("••••");
  });
});
