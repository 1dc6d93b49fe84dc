/**
 * The dashboard in a real browser: Debian's chromium driven by playwright-core against a mesh in
 * workerd. Signing in with the admin token shows the fixture skills and their states; a weight
 * set in the page is what `skillmesh status` then shows; a read-only admin key sees no
 * controls; no credential ends up in a URL or the page; the browser console stays clean (a
 * Content-Security-Policy violation would be an error there). Screenshots of the main views
 * are written to .skillmesh/screenshots/ (the guides' come from there).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../scripts/cli/index.js";
import { ROOT } from "../scripts/mesh/bundle.js";
import { type Mesh, startMesh } from "../scripts/mesh/index.js";
import { ADMIN_TOKEN, admin, eventually, fixture, post } from "./support/fixtures.js";
import { wireOf } from "./support/wire.js";
import { startV2Server } from "./support/processes.js";

const SCREENSHOTS = join(ROOT, ".skillmesh", "screenshots");
let mesh: Mesh;
let browser: Browser;
const consoleErrors: string[] = [];

beforeAll(async () => {
  mesh = await startMesh({ skills: ["flaky-v1", "flaky-v2", "subtract", "sum", "pipeline-language"].map(fixture), adminToken: ADMIN_TOKEN });
  // Root (CI) cannot use chromium's sandbox.
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: process.getuid?.() === 0 ? ["--no-sandbox"] : [] });
  mkdirSync(SCREENSHOTS, { recursive: true });
  // Some traffic and a rollout, so that the page has something to show.
  for (let i = 0; i < 10; i++) await wireOf(mesh.gatewayUrl).rpc("subtract", [i, 1]);
  await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout", { version: "2.0.0", steps: [10, 50, 100], every: "5m", maxErrorRate: "1%" });
  // The observed numbers land about a second after the calls.
  await eventually(
    async () => (await admin(mesh.gatewayUrl, "GET", "/skills/subtract")).json.observed["subtract@1.0.0"].calls,
    (calls) => calls === 10,
    10_000,
    200,
  );
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await mesh?.dispose();
});

/** A fresh browser context signed in with `key`; console errors and page errors are collected. */
async function signedIn(key: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  page.on("pageerror", (error) => consoleErrors.push(error.message));
  await page.goto(`${mesh.gatewayUrl}/admin/ui`);
  await page.fill('input[name="key"]', key);
  // The sign-in page is /admin/ui too, so wait for the page the form's answer loads, not for the URL.
  await Promise.all([page.waitForEvent("load"), page.click('button[type="submit"]')]);
  await page.locator("form.signin").waitFor({ state: "detached" });
  return { context, page };
}

describe("the dashboard", () => {
  it("refuses a wrong credential on its sign-in page", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${mesh.gatewayUrl}/admin/ui`);
    await page.screenshot({ path: join(SCREENSHOTS, "sign-in.png") });
    await page.fill('input[name="key"]', "not-the-token");
    await page.click('button[type="submit"]');
    await expect.poll(() => page.textContent("p.error")).toContain("not an admin token");
    await context.close();
  });

  it("shows every skill with its versions, roles, weights, breakers and rollout; a weight set in the page reaches skillmesh status", async () => {
    const { context, page } = await signedIn(ADMIN_TOKEN);
    expect(page.url()).toBe(`${mesh.gatewayUrl}/admin/ui`); // no credential in the URL
    expect(await page.content()).not.toContain(ADMIN_TOKEN); // nor in the page
    const skills = await page.$$eval("article.skill", (cards) => cards.map((card) => card.getAttribute("data-skill")));
    expect(skills).toEqual(["subtract", "sum", "test.flaky", "test.language"]);
    const flaky = page.locator('article[data-skill="test.flaky"]');
    const rows = await flaky.locator("tbody tr").allInnerTexts();
    expect(rows[0]).toMatch(/^1\.0\.0\tstable\t90%\tclosed/);
    expect(rows[1]).toMatch(/^2\.0\.0\tcanary\t10%\tclosed/);
    expect(await flaky.locator(".rollout").innerText()).toContain("Rollout of 2.0.0: running, step 1/3 (10% in *)");
    expect(await page.locator('article[data-skill="subtract"] tbody tr').first().innerText()).toMatch(/^1\.0\.0\tstable\t100%\tclosed\t10\t0\.0%\t[\d.]+ ms/);
    expect(await page.locator('article[data-skill="subtract"] svg.spark title').textContent()).toBe("10 calls in the last hour (peak 10 a minute)");
    await page.screenshot({ path: join(SCREENSHOTS, "dashboard.png"), fullPage: true });

    // The canary form starts at the canary's weight (10% in *), and follows the group typed.
    const weight = flaky.locator('form.canary input[name="weight"]');
    expect(await weight.inputValue()).toBe("10");
    // The canary form: 30% of the beta group. The page reloads with the new table.
    await flaky.locator('form.canary input[name="group"]').fill("beta");
    expect(await weight.inputValue()).toBe("0");
    await flaky.locator('form.canary input[name="weight"]').fill("30");
    await Promise.all([page.waitForEvent("load"), flaky.locator("form.canary button").click()]);
    expect(await page.locator('article[data-skill="test.flaky"] thead').innerText()).toContain("beta");

    const out: string[] = [];
    await runCli(["status", "test.flaky"], {
      env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN },
      out: (line) => out.push(line),
      fetch,
    });
    const table = out.join("\n");
    expect(table).toMatch(/VERSION\s+ROLE\s+\* \(default\)\s+beta/);
    expect(table).toMatch(/2\.0\.0\s+canary\s+10%\s+30%/);
    // The change is in the audit log, by the token the session was opened with.
    const canaryEntry = (entries: Array<{ action: string }>) => entries.find((e) => e.action === "POST /admin/skills/test.flaky/canary");
    const audit = await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", "/audit?type=admin&limit=5")).json.entries,
      (entries) => !!canaryEntry(entries),
      5_000,
      100,
    );
    expect(canaryEntry(audit)).toMatchObject({ by: "admin-token", status: 200 });

    // Pause the rollout from the page.
    await Promise.all([page.waitForEvent("load"), page.locator('article[data-skill="test.flaky"] .rollout button', { hasText: "Pause" }).click()]);
    expect(await page.locator('article[data-skill="test.flaky"] .rollout').innerText()).toContain("paused");
    await context.close();
  });

  it("a read-only admin key sees everything and no control", async () => {
    const { key } = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "viewer", skills: [], admin: "read" })).json;
    const { context, page } = await signedIn(key);
    expect(await page.locator(".who").innerText()).toContain("(read only)");
    expect(await page.locator("article.skill").count()).toBe(4);
    expect(await page.locator("form[data-api]").count()).toBe(0);
    await page.screenshot({ path: join(SCREENSHOTS, "read-only.png"), fullPage: true });
    // And the API refuses its session a change even when asked directly.
    const status = await page.evaluate(
      async () =>
        (
          await fetch("/admin/skills/test.flaky/rollback", {
            method: "POST",
            headers: { "content-type": "application/json", "x-skillmesh-ui": "1" },
            body: "{}",
          })
        ).status,
    );
    expect(status).toBe(403);
    await context.close();
  });

  it("a session cannot change anything without the dashboard's header (cross-site forms cannot send it)", async () => {
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const status = await page.evaluate(
      async () => (await fetch("/admin/skills/test.flaky/rollback", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status,
    );
    expect(status).toBe(403);
    await context.close();
  });

  it("marks a pipeline as one, with the skills its steps call", async () => {
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const card = page.locator('article[data-skill="test.language"]');
    expect(await card.locator("h3 .badge").innerText()).toBe("pipeline");
    expect(await card.locator(".steps").innerText()).toMatch(/^Steps call .*\bsum\b.*\bsubtract\b/);
    expect(await page.locator('article[data-skill="subtract"] h3 .badge').count()).toBe(0);
    await context.close();
  });

  it("uses a 1440 px screen: skills side by side, nothing left empty on the right", async () => {
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const main = (await page.locator("main").boundingBox())!;
    expect(main.width).toBeGreaterThan(1440 * 0.97);
    const [first, second] = await Promise.all([0, 1].map(async (i) => (await page.locator("article.skill").nth(i).boundingBox())!));
    expect(second!.y).toBe(first!.y); // two columns
    expect(second!.x + second!.width).toBeGreaterThan(1440 * 0.95);
    // Every control of every card is inside its card: none cut off at its right edge.
    for (const card of await page.locator("article.skill").all()) {
      const edge = await card.evaluate((element) => element.getBoundingClientRect().right);
      for (const button of await card.locator("button").all()) {
        const right = await button.evaluate((element) => element.getBoundingClientRect().right);
        expect(right, `${await card.getAttribute("data-skill")}: ${await button.innerText()}`).toBeLessThanOrEqual(edge);
      }
    }
    await context.close();
  });

  it("shows the audit log a page at a time, runs of the same entry as one row, filtered by type", async () => {
    // 60 more calls: with the 10 of the setup, more than a page (50) of identical entries.
    for (let i = 0; i < 60; i++) await wireOf(mesh.gatewayUrl).rpc("subtract", [i, 1]);
    await eventually(
      async () => (await admin(mesh.gatewayUrl, "GET", "/audit?type=call&skill=subtract&limit=100")).json.entries.length,
      (n) => n >= 70,
      10_000,
      200,
    );
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const rows = () => page.locator("#audit tbody tr").allInnerTexts();
    const calls = (await rows()).filter((row) => row.includes("subtract → subtract@1.0.0"));
    expect(calls).toHaveLength(1); // 50 identical entries: one row, counted
    expect(calls[0]).toMatch(/\tanonymous\tsubtract → subtract@1\.0\.0\tok\t×50$/);
    // Older entries: the rest of the calls, then what came before them.
    await Promise.all([page.waitForEvent("load"), page.locator("#audit a.older").click()]);
    expect(page.url()).toContain("audit_cursor=");
    expect((await rows()).find((row) => row.includes("subtract → subtract@1.0.0"))).toMatch(/×\d+$/);
    // Only the admin's own actions.
    await page.selectOption('#audit select[name="audit_type"]', "admin");
    await Promise.all([page.waitForEvent("load"), page.locator("#audit form.filter button").click()]);
    const admins = await rows();
    expect(admins.length).toBeGreaterThan(0);
    // (By the admin token, the read-only key k_…, or a failed sign-in's address id.)
    for (const row of admins) expect(row).toMatch(/^[\d: -–]+\t\S+\t(POST|GET|DELETE|PUT) \/admin\//);
    expect(admins.some((row) => row.includes("\tadmin-token\tPOST /admin/skills/test.flaky/canary"))).toBe(true);
    expect(await page.locator('#audit select[name="audit_type"]').inputValue()).toBe("admin");
    await context.close();
  });

  it("after a promotion the old stable is the previous version, not a canary at 0% to promote", async () => {
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/rollout/abort", {})).status).toBe(200);
    expect((await admin(mesh.gatewayUrl, "POST", "/skills/test.flaky/promote", { version: "2.0.0" })).status).toBe(200);
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const flaky = page.locator('article[data-skill="test.flaky"]');
    const rows = await flaky.locator("tbody tr").allInnerTexts();
    expect(rows[0]).toMatch(/^2\.0\.0\tstable\t100%/);
    expect(rows[1]).toMatch(/^1\.0\.0\tprevious\t0%/);
    expect(await flaky.locator("button", { hasText: /^Promote$/ }).count()).toBe(0);
    expect(await flaky.locator("tbody tr").nth(1).locator("button").innerText()).toBe("Make stable again");
    expect(await flaky.locator("form.canary").count()).toBe(0); // no canary left to weigh
    await page.screenshot({ path: join(SCREENSHOTS, "after-promotion.png"), fullPage: true });
    // skillmesh status reads it the same way (one rule: shownRoleOf).
    const out: string[] = [];
    await runCli(["status", "test.flaky"], {
      env: { SKILLMESH_URL: mesh.gatewayUrl, SKILLMESH_ADMIN_TOKEN: ADMIN_TOKEN },
      out: (line) => out.push(line),
      fetch,
    });
    expect(out.join("\n")).toMatch(/1\.0\.0\s+previous\s+0%/);
    await context.close();
  });

  it("shows the federated upstreams with their health and tools, and a held definition change an admin approves from the page", async () => {
    const upstream = await startV2Server("1");
    try {
      const added = await admin(mesh.gatewayUrl, "POST", "/upstreams", { kind: "mcp", name: "fixture", url: upstream.url, include: ["echo"] });
      expect(added.status, JSON.stringify(added.json)).toBe(201);
      await post(`${upstream.url}/control`, { description: "Echoes a message back, politely" });
      expect((await admin(mesh.gatewayUrl, "POST", "/upstreams/fixture/refresh")).json.reports[0].held).toHaveLength(1);

      const { context, page } = await signedIn(ADMIN_TOKEN);
      // Its tool is a skill like any other, marked as federated.
      const card = page.locator('article[data-skill="fixture.echo"]');
      expect(await card.locator("h3 .badge").innerText()).toBe("MCP upstream");
      expect(await card.locator(".steps").innerText()).toBe("Federated: tool echo of upstream fixture (see Upstreams)");
      const row = page.locator("#upstreams table").first().locator("tbody tr", { hasText: "fixture" });
      expect(await row.locator("td").allInnerTexts()).toEqual(expect.arrayContaining(["fixture", "mcp", "1.0.0", upstream.url, "ok", "1 fixture.echo"]));
      const held = page.locator("#upstreams table").nth(1).locator("tbody tr");
      expect(await held.count()).toBe(1);
      // The change in full: the field, its text before and after.
      expect(await held.innerText()).toMatch(/tool echo\s+changed\s+the pinned definition/);
      await held.locator("details.diff summary").click();
      expect(await held.locator("details.diff .field", { hasText: "manifest.description" }).innerText()).toMatch(
        /Echoes a message back\s+Echoes a message back, politely/,
      );
      await page.locator("#upstreams").screenshot({ path: join(SCREENSHOTS, "upstreams.png") });
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(1440); // nothing spills past the screen's edge

      await Promise.all([page.waitForEvent("load"), held.locator("button", { hasText: "Approve echo" }).click()]);
      expect(await page.locator("#upstreams .empty").innerText()).toBe("None."); // nothing held any more
      const view = (await admin(mesh.gatewayUrl, "GET", "/upstreams/fixture")).json;
      expect(view.versions["1.0.0"].held).toEqual([]);
      expect((await admin(mesh.gatewayUrl, "GET", "/skills/fixture.echo")).json.deployments[0].manifest.description).toBe("Echoes a message back, politely");
      await context.close();

      // A read-only admin sees the upstream and the changes, without Refresh or Approve.
      await post(`${upstream.url}/control`, { description: "Echoes, once more changed" });
      await admin(mesh.gatewayUrl, "POST", "/upstreams/fixture/refresh");
      const { key } = (await admin(mesh.gatewayUrl, "POST", "/keys", { name: "upstream-viewer", skills: [], admin: "read" })).json;
      const viewer = await signedIn(key);
      expect(await viewer.page.locator("#upstreams table").nth(1).locator("tbody tr").count()).toBe(1);
      expect(await viewer.page.locator("#upstreams form[data-api]").count()).toBe(0);
      await viewer.context.close();
    } finally {
      await admin(mesh.gatewayUrl, "DELETE", "/upstreams/fixture");
      await upstream.stop();
    }
  });

  it("shows every Agent Skills package with its versions, roles and shares, and promotes one from the page", async () => {
    const skillMd = (version: string) =>
      `---\nname: sign-notes\ndescription: How to read a difference's sign.\nallowed-tools: subtract\nmetadata:\n  version: "${version}"\n---\nCall subtract.\n`;
    for (const version of ["1.0.0", "1.1.0"])
      expect(
        (await admin(mesh.gatewayUrl, "POST", "/agent-skills", { name: "sign-notes", files: [{ path: "SKILL.md", content: skillMd(version) }] })).status,
      ).toBe(201);
    expect((await admin(mesh.gatewayUrl, "POST", "/agent-skills/sign-notes/canary", { version: "1.1.0", groups: { beta: 100 } })).status).toBe(200);
    const { context, page } = await signedIn(ADMIN_TOKEN);
    const rows = page.locator("#packages tbody tr");
    expect(await rows.allInnerTexts()).toEqual([
      expect.stringMatching(/^sign-notes\t1\.1\.0\tcanary\t\* \(default\): 0%, beta: 100%\t1 SKILL\.md\t-\t/),
      expect.stringMatching(/^sign-notes\t1\.0\.0\tstable\t\* \(default\): 100%, beta: 0%\t1 SKILL\.md\t-\t/),
    ]);
    await page.locator("#packages").screenshot({ path: join(SCREENSHOTS, "packages.png") });
    await Promise.all([page.waitForEvent("load"), rows.first().locator("button", { hasText: "Promote sign-notes 1.1.0" }).click()]);
    expect((await admin(mesh.gatewayUrl, "GET", "/agent-skills/sign-notes")).json.stable).toBe("1.1.0");
    expect(await page.locator("#packages tbody tr").first().innerText()).toMatch(/^sign-notes\t1\.1\.0\tstable/);
    await context.close();
  });

  it("left the browser console clean", () => {
    expect(consoleErrors.filter((e) => !e.includes("401") && !e.includes("403"))).toEqual([]);
  });
});
