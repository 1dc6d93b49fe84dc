import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSkill, startSkill } from "../../test/support/skill.js";
import { cleanText, decodeEntities } from "./extract.js";

describe("text helpers", () => {
  it("decodes numeric and named entities, leaves unknown ones", () => {
    expect(decodeEntities("Tom &amp; Jerry &#8212; &#x1F600; &bogus;")).toBe("Tom & Jerry — 😀 &bogus;");
  });
  it("collapses spaces and blank lines", () => {
    expect(cleanText("  a \t b \n\n\n  c  ")).toBe("a b\nc");
  });
});

// HTMLRewriter exists only in the Workers runtime: the extraction itself is tested in workerd.
describe("html.extract Worker (workerd, HTMLRewriter)", () => {
  let skill: RunningSkill;
  beforeAll(async () => (skill = await startSkill("skills/html-extract")));
  afterAll(() => skill?.dispose());

  const page = `<!doctype html><html lang="en"><head>
    <title>Grid &amp; Meters</title>
    <meta name="description" content="How meters talk">
    <link rel="canonical" href="/guide">
    <style>body { color: red }</style><script>var secret = "do not show";</script>
  </head><body>
    <nav><a href="/home">Home</a></nav>
    <h1>Reading <em>meters</em></h1>
    <p>Meters speak Modbus.<br>Most of them do.</p>
    <h2>Frames</h2>
    <p>See <a href="spec.html">the spec</a> and <a href="javascript:void(0)">nothing</a>.</p>
    <img src="/img/meter.png" alt="A meter">
    <noscript>enable js</noscript>
  </body></html>`;

  it("extracts title, description, language, canonical, headings, links and images", async () => {
    const { result } = await skill.call({ html: page, baseUrl: "https://example.org/docs/" });
    expect(result).toMatchObject({
      title: "Grid & Meters",
      description: "How meters talk",
      lang: "en",
      canonical: "https://example.org/guide",
      headings: [
        { level: 1, text: "Reading meters" },
        { level: 2, text: "Frames" },
      ],
      links: [
        { href: "https://example.org/home", text: "Home" },
        { href: "https://example.org/docs/spec.html", text: "the spec" },
      ],
      images: [{ src: "https://example.org/img/meter.png", alt: "A meter" }],
      truncated: false,
    });
  });

  it("gives readable text without scripts, styles, noscript or navigation, blocks on their own lines", async () => {
    const { result } = await skill.call({ html: page });
    expect(result.text).toBe("Reading meters\nMeters speak Modbus.\nMost of them do.\nFrames\nSee the spec and nothing.");
    expect(result.text).not.toContain("secret");
    expect(result.wordCount).toBe(15);
    expect(result.links[1].href).toBe("spec.html");
  });

  it("keeps menus out of the text and headings but lists their links", async () => {
    const html =
      '<div role="navigation"><h2>Menu</h2><a href="/a">Docs</a><hr role="navigation"></div><nav><ul><li><a href="/b">Blog</a></li></ul></nav><h1>Meters</h1><p>See <a href="/c">it</a>.</p>';
    const { result } = await skill.call({ html });
    expect(result.text).toBe("Meters\nSee it.");
    expect(result.headings).toEqual([{ level: 1, text: "Meters" }]);
    expect(result.links).toEqual([
      { href: "/a", text: "Docs" },
      { href: "/b", text: "Blog" },
      { href: "/c", text: "it" },
    ]);
  });

  it("keeps the title out of the text even without a <head>", async () => {
    const { result } = await skill.call({ html: "<title>Hi</title><h1>Meters</h1><p>See it.</p>" });
    expect(result).toMatchObject({ title: "Hi", text: "Meters\nSee it." });
  });

  it("takes self-closing elements inside SVG and MathML (no end tag) in its stride", async () => {
    const { result } = await skill.call({ html: '<p>Before</p><svg><a href="x"/><title/></svg><math><h1/></math><p>After <a href="/y">link</a></p>' });
    expect(result.text).toBe("Before\nAfter link");
    expect(result.links).toEqual([
      { href: "x", text: "" },
      { href: "/y", text: "link" },
    ]);
  });

  it("truncates long text and says so", async () => {
    const { result } = await skill.call({ html: `<p>${"word ".repeat(100)}</p>`, maxTextChars: 100 });
    expect(result.text).toHaveLength(100);
    expect(result.truncated).toBe(true);
  });
});
