/**
 * HTML → what an agent wants from a page: title, description, language, canonical URL,
 * headings, links, images and readable text, via the Workers runtime's streaming HTMLRewriter
 * (no DOM, constant memory per element). Script, style and other non-content elements are
 * skipped; navigation (`<nav>`, `role="navigation"`) stays out of the text and headings but its
 * links are listed; block elements become line breaks.
 */
import { InputError } from "../../src/skill/index.js";

export interface ExtractedPage {
  title: string | null;
  description: string | null;
  lang: string | null;
  canonical: string | null;
  headings: Array<{ level: number; text: string }>;
  links: Array<{ href: string; text: string }>;
  images: Array<{ src: string; alt: string }>;
  text: string;
  wordCount: number;
  truncated: boolean;
}

export interface ExtractOptions {
  /** Resolves relative links and images; without it they stay as written. */
  baseUrl?: string;
  /** Cap on `text` length (characters). */
  maxTextChars: number;
  /** Cap on how many links / images are listed. */
  maxItems: number;
}

const SKIPPED = "script, style, noscript, template, svg, iframe, object, head";
/** Navigation: menus and breadcrumbs repeat on every page, so they are noise in its text; their links are kept. */
const isNavigation = (el: Element) => el.tagName === "nav" || el.getAttribute("role")?.toLowerCase() === "navigation";
const BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "main",
  "header",
  "footer",
  "aside",
  "nav",
  "li",
  "ul",
  "ol",
  "table",
  "tr",
  "br",
  "hr",
  "blockquote",
  "pre",
  "dt",
  "dd",
  "figcaption",
]);
// An element keeps one end-tag handler (a second `onEndTag` replaces the first), so headings add
// their own line breaks instead of being listed in BLOCKS, and one handler serves blocks and
// navigation (a <nav> is both).

/** Collapses runs of spaces and decodes the few entities HTMLRewriter leaves in text chunks. */
export function cleanText(text: string): string {
  return decodeEntities(text)
    .replace(/[ \t\f\v\u00a0]+/g, " ")
    .replace(/ *\n[ \n]*/g, "\n")
    .trim();
}

const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0", mdash: "—", ndash: "–", hellip: "…", copy: "©" };

/** Decodes numeric and common named character references (text chunks arrive undecoded). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === "#") {
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

/**
 * Runs `done` at the element's end tag, or at once when it has none: a void element, or `<a/>`
 * inside SVG or MathML, where lol-html throws ("No end tag") when asked for one.
 */
function atEnd(el: Element, done: () => void): void {
  try {
    el.onEndTag(() => done());
  } catch {
    done();
  }
}

function resolveUrl(href: string, baseUrl: string | undefined): string {
  if (!baseUrl) return href;
  try {
    return new URL(href, baseUrl).toString();
  } catch {
    return href;
  }
}

/**
 * Extracts a page with HTMLRewriter (Workers runtime only).
 * @example const page = await extractPage("<title>Hi</title><p>Hello</p>", { maxTextChars: 20_000, maxItems: 200 })
 */
export async function extractPage(html: string, options: ExtractOptions): Promise<ExtractedPage> {
  const page: ExtractedPage = {
    title: null,
    description: null,
    lang: null,
    canonical: null,
    headings: [],
    links: [],
    images: [],
    text: "",
    wordCount: 0,
    truncated: false,
  };
  let skipDepth = 0;
  let navigationDepth = 0;
  let body = "";
  let title: string | null = null;
  let heading: { level: number; text: string } | null = null;
  let link: { href: string; text: string } | null = null;

  const rewriter = new HTMLRewriter()
    .on("html", { element: (el) => void (page.lang = el.getAttribute("lang")) })
    .on("title", {
      element: (el) => {
        title = "";
        skipDepth++; // the title is metadata, not body text (also when there is no <head>)
        atEnd(el, () => {
          skipDepth--;
          page.title ??= cleanText(title ?? "") || null;
        });
      },
      text: (chunk) => void (title = (title ?? "") + chunk.text),
    })
    .on('meta[name="description" i], meta[property="og:description" i]', {
      element: (el) => void (page.description ??= cleanText(el.getAttribute("content") ?? "") || null),
    })
    .on('link[rel="canonical" i]', { element: (el) => void (page.canonical ??= resolveUrl(el.getAttribute("href") ?? "", options.baseUrl) || null) })
    .on(SKIPPED, {
      element: (el) => {
        skipDepth++;
        atEnd(el, () => void skipDepth--);
      },
    })
    .on("h1, h2, h3, h4, h5, h6", {
      element: (el) => {
        heading = { level: Number(el.tagName.slice(1)), text: "" };
        body += "\n";
        atEnd(el, () => {
          body += "\n";
          const text = cleanText(heading?.text ?? "");
          if (text && skipDepth === 0 && navigationDepth === 0) page.headings.push({ level: heading!.level, text });
          heading = null;
        });
      },
    })
    .on("a[href]", {
      element: (el) => {
        const href = el.getAttribute("href") ?? "";
        if (/^(javascript|data):/i.test(href) || href.startsWith("#")) return;
        link = { href: resolveUrl(href, options.baseUrl), text: "" };
        atEnd(el, () => {
          if (link && page.links.length < options.maxItems) page.links.push({ href: link.href, text: cleanText(link.text) });
          link = null;
        });
      },
    })
    .on("img[src]", {
      element: (el) => {
        if (page.images.length < options.maxItems)
          page.images.push({ src: resolveUrl(el.getAttribute("src") ?? "", options.baseUrl), alt: cleanText(el.getAttribute("alt") ?? "") });
      },
    })
    .on(`${[...BLOCKS].join(", ")}, [role="navigation" i]`, {
      element: (el) => {
        const block = BLOCKS.has(el.tagName);
        const navigation = isNavigation(el);
        if (block) body += "\n";
        if (el.removed || el.tagName === "br" || el.tagName === "hr") return;
        if (navigation) navigationDepth++;
        atEnd(el, () => {
          if (block) body += "\n";
          if (navigation) navigationDepth--;
        });
      },
    })
    .onDocument({
      text: (chunk) => {
        if (skipDepth > 0) return;
        if (link) link.text += chunk.text;
        if (navigationDepth > 0) return;
        body += chunk.text;
        if (heading) heading.text += chunk.text;
      },
    });

  // The rewriter streams: reading the transformed body drives every handler above. What its
  // parser refuses (lol-html's "Parser error: …", e.g. its memory limit) is the input's fault.
  try {
    await rewriter.transform(new Response(html, { headers: { "content-type": "text/html; charset=utf-8" } })).arrayBuffer();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/^Parser error/i.test(message)) throw new InputError(`The HTML could not be parsed: ${message.replace(/^Parser error:\s*/i, "")}`);
    throw error;
  }

  const text = cleanText(body);
  page.wordCount = (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;
  page.truncated = text.length > options.maxTextChars;
  page.text = page.truncated ? text.slice(0, options.maxTextChars) : text;
  return page;
}
