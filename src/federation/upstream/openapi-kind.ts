/**
 * An OpenAPI service as an upstream kind: its document (read from its URL, bounded, or sent
 * inline) parsed, each selected operation a tool; a tool called as its HTTP request.
 */
import { boundedText } from "../../lib/body/index.js";
import type { UpstreamEndpoint } from "../../registry/deployments/model.js";
import { type Skipped, redactedUrl, urlSecretRefusal } from "./definitions.js";
import { type Definition, type DefinitionsRead, type UpstreamKind, UpstreamError, definitionOf } from "./kind.js";
import { MAX_DOCUMENT_BYTES, callOperation, operationsOf, parseDocument, serverUrlOf } from "./openapi.js";

/** An OpenAPI service's operations. */
export const openapiKind: UpstreamKind<Extract<UpstreamEndpoint, { kind: "openapi" }>> = {
  async definitions({ record, source, credential, where, signal, urlRefusal }): Promise<DefinitionsRead> {
    const definitions: Definition[] = [];
    const skipped: Skipped[] = [];
    // A document's host gets the API's credential only when it is the API's own origin, or the operator says so.
    const sameOrigin = !!where.url && !!where.documentUrl && new URL(where.url).origin === new URL(where.documentUrl).origin;
    const documentHeaders = sameOrigin || record.documentAuth ? credential.headers : {};
    const document = where.inline ?? (await readDocument(record.name, where.documentUrl!, documentHeaders, signal));
    let parsed: Record<string, unknown>;
    try {
      parsed = parseDocument(document);
    } catch (error) {
      throw new UpstreamError(
        400,
        `Upstream ${record.name}: the OpenAPI document cannot be used: ${error instanceof Error ? error.message.slice(0, 300) : "it does not parse"}`,
      );
    }
    const url = where.url ?? serverUrlOf(parsed);
    if (!url)
      throw new UpstreamError(400, `Upstream ${record.name}: the document names no absolute server URL; send "url", the base URL its operations are called on`);
    const refusal = urlRefusal(url, "an upstream URL") ?? urlSecretRefusal(url, "an upstream URL");
    if (refusal) throw new UpstreamError(400, `Invalid upstream: ${refusal}`);
    const operations = operationsOf(parsed, source);
    skipped.push(...operations.skipped);
    for (const op of operations.tools)
      definitions.push(await definitionOf(op.tool, op.manifest, { upstream: { kind: "openapi", name: record.name, url, operation: op.operation } }));
    return { url, era: undefined, definitions, skipped };
  },

  call({ endpoint, request, args, credential, urlRefusal }) {
    return callOperation({
      url: endpoint.url,
      operation: endpoint.operation,
      args,
      headers: credential.headers,
      ...(credential.query ? { query: credential.query } : {}),
      signal: request.signal,
      label: request.skill,
      urlRefusal: (url) => urlRefusal(url, "an upstream URL"),
    });
  },
};

/** An OpenAPI document read from its URL: 200, at most `MAX_DOCUMENT_BYTES`, no redirect. */
async function readDocument(name: string, url: string, headers: Record<string, string>, signal: AbortSignal): Promise<string> {
  try {
    const response = await fetch(url, {
      headers: { ...headers, accept: "application/json, application/yaml, text/yaml, */*;q=0.5" },
      redirect: "manual",
      signal,
    });
    if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
    return await boundedText(response, MAX_DOCUMENT_BYTES);
  } catch (error) {
    throw new UpstreamError(
      502,
      `Could not read ${name}'s OpenAPI document from ${redactedUrl(url)} (200, at most ${MAX_DOCUMENT_BYTES / 1024 / 1024} MiB, no redirect): ${error instanceof Error ? error.message.slice(0, 200) : "failed"}`,
    );
  }
}
