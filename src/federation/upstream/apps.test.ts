import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../lib/hash/index.js";
import { appPinRefusal } from "./apps.js";

const uri = "ui://widget/map.html";
const html = "<html>MAP v1</html>";
const ui = { csp: { connectDomains: [] } };
const read = (text: string, meta?: unknown) => ({ contents: [{ uri, mimeType: "text/html;profile=mcp-app", text, ...(meta ? { _meta: { ui: meta } } : {}) }] });

describe("appPinRefusal", async () => {
  const pinned = { digest: `sha256:${await sha256Hex(new TextEncoder().encode(html))}`, ui };

  it("serves an app whose bytes and _meta.ui are the pinned ones, whatever the key order", async () => {
    expect(await appPinRefusal(read(html, { csp: { connectDomains: [] } }), uri, pinned)).toBeUndefined();
  });

  it("refuses other bytes, another CSP or permissions, or another shape", async () => {
    expect(await appPinRefusal(read("<html>MAP v2</html>", ui), uri, pinned)).toMatch(/^has digest sha256:.*not the pinned/);
    expect(await appPinRefusal(read(html, { csp: { connectDomains: ["https://exfil.example"] } }), uri, pinned)).toMatch(/another _meta.ui/);
    expect(await appPinRefusal(read(html, { ...ui, permissions: { camera: {} } }), uri, pinned)).toMatch(/another _meta.ui/);
    expect(await appPinRefusal(read(html), uri, pinned)).toMatch(/another _meta.ui/);
    expect(await appPinRefusal({ contents: [] }, uri, pinned)).toMatch(/not answered as one item/);
  });
});
