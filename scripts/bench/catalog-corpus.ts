/**
 * A catalog of 10,000 tools as a large organisation's might look — 8 business units × 50 kinds
 * of thing × 25 operations, each with its own name, tags, description and arguments — and 50
 * queries written as an agent would ask, each with the tool it should find. The compact
 * catalog's search is measured on it (test/catalog-search.test.ts, `npm run bench -- --catalog`).
 * Near neighbours are the point: `retail.invoice.parse` beside `retail.invoice.validate`,
 * `finance.invoice.parse` and `retail.receipt.parse`.
 */
import type { SkillManifest } from "../../src/skill/manifest.js";

/** Business units: a name prefix and what their tools are for. */
const UNITS = [
  ["retail", "for the retail stores (point of sale, shelves, loyalty)"],
  ["finance", "for finance and accounting (ledgers, payables, audits)"],
  ["health", "for the clinics (patients, lab work, HIPAA-safe)"],
  ["logistics", "for warehouses and shipping (fleets, parcels, customs)"],
  ["energy", "for the power grid operations (substations, meters, SCADA)"],
  ["media", "for the newsroom and video studio"],
  ["legal", "for the legal team (contracts, cases, compliance)"],
  ["devops", "for the platform team (clusters, pipelines, on-call)"],
] as const;

/** Things tools work on: a name part, the words for it, and what it holds. */
const OBJECTS = [
  ["invoice", "invoice", "line items, totals and tax"],
  ["receipt", "receipt", "purchased items and the amount paid"],
  ["contract", "contract", "parties, clauses and renewal dates"],
  ["email", "email message", "sender, recipients, subject and body"],
  ["calendar", "calendar event", "start and end times, attendees and location"],
  ["image", "image", "pixels, dimensions and EXIF metadata"],
  ["audio", "audio recording", "speech, speakers and duration"],
  ["video", "video file", "frames, scenes and subtitles"],
  ["pdf", "PDF document", "pages, text and embedded tables"],
  ["csv", "CSV spreadsheet", "rows, columns and headers"],
  ["json", "JSON document", "keys, nested objects and arrays"],
  ["xml", "XML feed", "elements, attributes and namespaces"],
  ["sql", "SQL query", "tables, joins and predicates"],
  ["log", "log line", "timestamps, levels and messages"],
  ["trace", "stack trace", "frames, exceptions and source files"],
  ["diff", "git diff", "changed files, hunks and authors"],
  ["container", "container image", "layers, packages and vulnerabilities"],
  ["manifest", "Kubernetes manifest", "deployments, services and resource limits"],
  ["dns", "DNS record", "names, record types and TTLs"],
  ["certificate", "TLS certificate", "subject, issuer and expiry date"],
  ["address", "postal address", "street, city, postcode and country"],
  ["phone", "phone number", "country code, carrier and line type"],
  ["transaction", "bank transaction", "amount, counterparty and booking date"],
  ["card", "payment card", "card number, expiry and issuer"],
  ["quote", "stock quote", "ticker, price and volume"],
  ["weather", "weather forecast", "temperature, wind and precipitation"],
  ["flight", "flight itinerary", "legs, airports and departure times"],
  ["label", "shipping label", "carrier, tracking number and weight"],
  ["barcode", "barcode", "symbology and encoded digits"],
  ["qrcode", "QR code", "encoded URL or text"],
  ["record", "medical record", "diagnoses, medications and allergies"],
  ["labresult", "lab result", "analytes, values and reference ranges"],
  ["resume", "resume", "work history, skills and education"],
  ["posting", "job posting", "role, requirements and salary range"],
  ["review", "product review", "rating, sentiment and product"],
  ["post", "social media post", "author, hashtags and engagement"],
  ["transcript", "chat transcript", "turns, participants and intents"],
  ["ticket", "support ticket", "customer, priority and status"],
  ["notes", "meeting notes", "decisions, action items and owners"],
  ["sensor", "sensor reading", "device, unit and measured value"],
  ["canframe", "CAN bus frame", "arbitration id and data bytes"],
  ["gps", "GPS track", "coordinates, speed and heading"],
  ["satellite", "satellite image", "bands, cloud cover and footprint"],
  ["meter", "energy meter reading", "kWh consumed, demand and tariff"],
  ["order", "purchase order", "supplier, items and delivery date"],
  ["payslip", "payslip", "gross pay, deductions and net pay"],
  ["policy", "insurance policy", "coverage, premium and exclusions"],
  ["patent", "patent filing", "claims, inventors and priority date"],
  ["recipe", "recipe", "ingredients, steps and nutrition"],
  ["route", "delivery route", "stops, distances and time windows"],
] as const;

/** Operations: a name part, a verb phrase, what it answers, and its extra arguments. */
const OPERATIONS = [
  ["parse", "Parse", "into structured fields", { strict: "boolean" }],
  ["validate", "Validate", "against its schema and business rules, listing every violation", { rules: "string" }],
  ["convert", "Convert", "to another format (JSON, CSV or XML)", { format: ["json", "csv", "xml"] }],
  ["summarize", "Summarize", "in a few sentences", { sentences: "integer" }],
  ["translate", "Translate", "into another language", { language: "string" }],
  ["extract", "Extract named entities from", "as a list of people, places and organisations", { types: "string" }],
  ["classify", "Classify", "into categories with confidence scores", { labels: "string" }],
  ["redact", "Redact personal data from", "masking names, numbers and emails", { mask: "string" }],
  ["anonymize", "Anonymize", "with stable pseudonyms so records still join", { salt: "string" }],
  ["compress", "Compress", "to a smaller size, losslessly", { level: "integer" }],
  ["encrypt", "Encrypt", "with a key from the vault", { keyId: "string" }],
  ["sign", "Digitally sign", "and answer the detached signature", { keyId: "string" }],
  ["diff", "Compare two versions of", "and answer what changed between them", { other: "string" }],
  ["merge", "Merge several", "into one, resolving duplicates", { strategy: ["first", "last", "newest"] }],
  ["dedupe", "Find duplicate", "entries by fuzzy matching", { threshold: "number" }],
  ["search", "Search", "by keyword and filters", { query: "string" }],
  ["index", "Index", "for fast full-text search later", { collection: "string" }],
  ["score", "Score the quality of", "from 0 to 100 with the reasons", { rubric: "string" }],
  ["forecast", "Forecast the next values of", "from its history", { horizon: "integer" }],
  ["detect", "Detect anomalies in", "and flag the outliers", { sensitivity: "number" }],
  ["render", "Render", "as an HTML preview", { theme: ["light", "dark"] }],
  ["archive", "Archive", "to cold storage with a retention period", { retentionDays: "integer" }],
  ["audit", "Audit", "for compliance and answer the findings", { standard: "string" }],
  ["notify", "Send a notification about", "to its owners by email or chat", { channel: ["email", "slack", "sms"] }],
  ["schedule", "Schedule a recurring job for", "at a cron-like interval", { cron: "string" }],
] as const;

export const CORPUS_SIZE = UNITS.length * OBJECTS.length * OPERATIONS.length;

/**
 * Tool `i` of the corpus (0 ≤ i < 10,000): `<unit>.<object>.<operation>`.
 * @example corpusManifest(0).name // "retail.invoice.parse"
 */
export function corpusManifest(i: number): SkillManifest {
  const [unit, purpose] = UNITS[i % UNITS.length]!;
  const [object, words, holds] = OBJECTS[Math.floor(i / UNITS.length) % OBJECTS.length]!;
  const [operation, verb, answers, extra] = OPERATIONS[Math.floor(i / (UNITS.length * OBJECTS.length)) % OPERATIONS.length]!;
  const properties: Record<string, unknown> = { [object]: { type: "string", description: `The ${words} (its ${holds})` } };
  for (const [name, type] of Object.entries(extra)) properties[name] = Array.isArray(type) ? { type: "string", enum: type } : { type };
  return {
    name: `${unit}.${object}.${operation}`,
    version: "1.0.0",
    description: `${verb} a ${words} ${answers}, ${purpose}. Reads its ${holds}.`,
    tags: [`${unit}`, `${object}`, `op.${operation}`],
    idempotent: true,
    degraded: false,
    timeoutMs: 5_000,
    inputSchema: { type: "object", properties, required: [object], additionalProperties: false },
    outputSchema: { type: "object" },
  };
}

/**
 * The 50 queries: as an agent phrases a need (not the tool's name), and the tool that meets it.
 * The shipped skills and Agent Skills are among them, found among the 10,000.
 */
export const QUERIES: ReadonlyArray<{ query: string; want: string }> = [
  { query: "decode a modbus rtu frame from a serial sniffer", want: "modbus.decode" },
  { query: "get the readable text and title out of an html page", want: "html.extract" },
  { query: "short summary of a long text", want: "text.summarize" },
  { query: "digest of a web page: title, word count and summary", want: "web.digest" },
  { query: "triage a modbus capture and say what is wrong on the bus", want: "modbus-triage" },
  { query: "research digest from several web pages", want: "web-research-digest" },
  { query: "parse a retail invoice into line items", want: "retail.invoice.parse" },
  { query: "validate a finance invoice against business rules", want: "finance.invoice.validate" },
  { query: "redact personal data from a medical record in the clinic", want: "health.record.redact" },
  { query: "anonymize patient lab results with pseudonyms", want: "health.labresult.anonymize" },
  { query: "translate a legal contract into another language", want: "legal.contract.translate" },
  { query: "summarize meeting notes for the platform team", want: "devops.notes.summarize" },
  { query: "detect anomalies in energy meter readings", want: "energy.meter.detect" },
  { query: "forecast substation sensor readings", want: "energy.sensor.forecast" },
  { query: "check a tls certificate for compliance on the clusters", want: "devops.certificate.audit" },
  { query: "scan a container image for vulnerabilities audit", want: "devops.container.audit" },
  { query: "validate a kubernetes manifest resource limits", want: "devops.manifest.validate" },
  { query: "parse a shipping label tracking number in the warehouse", want: "logistics.label.parse" },
  { query: "optimize delivery route stops for the fleet forecast", want: "logistics.route.forecast" },
  { query: "merge duplicate purchase orders from suppliers in logistics", want: "logistics.order.merge" },
  { query: "find duplicate bank transactions in the ledger", want: "finance.transaction.dedupe" },
  { query: "detect fraud anomalies in payment card transactions for finance", want: "finance.card.detect" },
  { query: "classify support tickets for the stores by priority", want: "retail.ticket.classify" },
  { query: "sentiment of product reviews at the retail stores classify", want: "retail.review.classify" },
  { query: "extract people and organisations from a newsroom social media post", want: "media.post.extract" },
  { query: "add subtitles: translate a video file for the studio", want: "media.video.translate" },
  { query: "transcribe and summarize an audio recording in the newsroom", want: "media.audio.summarize" },
  { query: "compress a satellite image losslessly for energy", want: "energy.satellite.compress" },
  { query: "convert a csv spreadsheet to json for accounting", want: "finance.csv.convert" },
  { query: "convert an xml feed to json in the newsroom", want: "media.xml.convert" },
  { query: "render a json document as an html preview for the legal team", want: "legal.json.render" },
  { query: "score resume quality for a job posting", want: "legal.resume.score" },
  { query: "sign a patent filing digitally", want: "legal.patent.sign" },
  { query: "encrypt a payslip with a vault key", want: "finance.payslip.encrypt" },
  { query: "archive old emails to cold storage for compliance", want: "legal.email.archive" },
  { query: "index log lines for full-text search on the platform", want: "devops.log.index" },
  { query: "search stack traces by exception keyword devops", want: "devops.trace.search" },
  { query: "compare two versions of a git diff on the platform team", want: "devops.diff.diff" },
  { query: "notify owners about an expiring insurance policy in finance", want: "finance.policy.notify" },
  { query: "schedule a recurring job for weather forecasts in energy", want: "energy.weather.schedule" },
  { query: "parse a flight itinerary legs and airports for logistics", want: "logistics.flight.parse" },
  { query: "validate postal addresses for shipping parcels", want: "logistics.address.validate" },
  { query: "validate a phone number carrier for loyalty customers at the stores", want: "retail.phone.validate" },
  { query: "decode a barcode at the point of sale", want: "retail.barcode.parse" },
  { query: "read a qr code encoded url in the clinic", want: "health.qrcode.parse" },
  { query: "parse CAN bus frames from a grid substation", want: "energy.canframe.parse" },
  { query: "summarize a GPS track of a delivery fleet", want: "logistics.gps.summarize" },
  { query: "extract named entities from a chat transcript with customers at retail", want: "retail.transcript.extract" },
  { query: "calendar event scheduling for clinic attendees", want: "health.calendar.schedule" },
  { query: "dns record audit for the platform clusters", want: "devops.dns.audit" },
];
