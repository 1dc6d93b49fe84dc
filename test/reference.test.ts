/**
 * The generated reference (docs/reference.md): the settings table from src/gateway/config's schema and
 * the error table from src/policies/failures. A change to either that was not followed by `npm run
 * reference` fails here; so does a setting or error code that the tables leave out.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REFERENCE_PATH, generatedReference, withGenerated } from "../scripts/reference.js";
import { SettingsSchema } from "../src/gateway/config/index.js";
import { ERROR_CODE_DOCS } from "../src/policies/failures/index.js";
import { ErrorCode } from "../src/protocols/jsonrpc/index.js";
import { McpErrorCode } from "../src/protocols/mcp/index.js";

describe("docs/reference.md", () => {
  const current = readFileSync(REFERENCE_PATH, "utf8");

  it("is up to date with the settings schema and the failure table (else: npm run reference)", () => {
    expect(current).toBe(generatedReference(current));
  });

  it("documents every setting the gateway reads, each with what it does", () => {
    for (const [name, schema] of Object.entries(SettingsSchema.shape)) {
      expect(current, name).toContain(`| \`${name}\``);
      expect((schema.meta() as { description?: string } | undefined)?.description, name).toBeTruthy();
    }
  });

  it("documents every error code the gateway answers, once", () => {
    const documented = ERROR_CODE_DOCS.map((doc) => doc.code);
    expect(new Set(documented).size).toBe(documented.length);
    // MCP's codes may reuse one of the gateway's (-32002): documented once, with both meanings.
    expect([...documented].sort()).toEqual([...new Set([...Object.values(ErrorCode), ...Object.values(McpErrorCode)])].sort());
  });

  it("notices a stale table: a hand edit inside a generated section is undone by the generator", () => {
    const edited = withGenerated(current, "settings", "| stale |");
    expect(generatedReference(edited)).toBe(current);
    expect(edited).not.toBe(current);
  });
});
