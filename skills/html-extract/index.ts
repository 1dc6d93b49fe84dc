import { defineSkill, z } from "../../src/skill/index.js";
import { extractPage } from "./extract.js";

export default defineSkill({
  name: "html.extract",
  version: "1.0.0",
  description:
    "Turn raw HTML into clean structured content: title, meta description, language, canonical URL, headings, links, images and the readable text (scripts, styles and navigation noise removed). Pass baseUrl to get absolute links.",
  tags: ["html.extract", "web.scrape", "text"],
  input: z.object({
    html: z.string().min(1).max(900_000).describe("The HTML document (up to 900,000 characters)"),
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .optional()
      .describe("The page's URL, to resolve relative links"),
    maxTextChars: z.number().int().min(100).max(200_000).default(20_000).describe("Longest text returned"),
    maxItems: z.number().int().min(0).max(2_000).default(200).describe("Most links and images returned"),
  }),
  output: z.object({
    title: z.string().nullable(),
    description: z.string().nullable(),
    lang: z.string().nullable(),
    canonical: z.string().nullable(),
    headings: z.array(z.object({ level: z.number().int().min(1).max(6), text: z.string() })),
    links: z.array(z.object({ href: z.string(), text: z.string() })),
    images: z.array(z.object({ src: z.string(), alt: z.string() })),
    text: z.string(),
    wordCount: z.number().int(),
    truncated: z.boolean(),
  }),
  idempotent: true,
  // Released (1.0.0) before inputs were strict: its contract stays open; the next major may drop this.
  strictInput: false,
  timeoutMs: 5_000,
  handler: ({ html, baseUrl, maxTextChars, maxItems }) => extractPage(html, { baseUrl, maxTextChars, maxItems }),
});
