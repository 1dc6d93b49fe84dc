/**
 * What a caller may use besides tools: MCP resources, resource templates and prompts, each with
 * its owner as data — the skill that declares it (answered by the version routed to the caller),
 * or the MCP upstream version it was read from — never inferred from a tag.
 *
 * - A skill's own (declared in `defineSkill`, src/skill) are offered to the callers that may call
 *   the skill; its prompts are listed as `<skill>.<prompt>`.
 * - A federated MCP upstream's (read and pinned at each sync, src/federation/upstream) are granted by name as
 *   tools are: each is `<upstream>.<its name>` to the caller's grants (with the upstream's tags),
 *   and the operator's `include`/`exclude` apply to its name. They come from the version of the
 *   upstream the caller is routed to (the version its calls of the upstream's tools go to), so a
 *   canary's callers see the canary's. Prompts are listed as `<upstream>.<prompt>`.
 * - A federated MCP upstream's Agent Skills (pinned at each sync, src/federation/upstream/packages.ts) are
 *   granted the same way (`<upstream>.<skill name>`), and served as
 *   `skill://<upstream>/<skill-path>/<file>` beside the gateway's own packages.
 */
import type { Access } from "../../identity/auth/access.js";
import type { Prompt, Resource, ResourceTemplate } from "../../protocols/mcp/index.js";
import type { RegistryView, ToolEntry } from "../../registry/deployments/snapshot.js";
import { type RouteKey, routedDeployment } from "../../registry/routing/index.js";
import { appUriOf, selects, upstreamTag } from "../../federation/upstream/definitions.js";
import type { UpstreamRecord, UpstreamPackage } from "../../federation/upstream/model.js";
import { servedPackageUriOf } from "../../federation/upstream/packages.js";
import type { PackageEntry } from "../../registry/packages/index.js";
import type { ToolSummary } from "./catalog.js";
import type { Pin } from "./operation.js";

/** Who answers an offering: a skill (its routed version), or one version of an MCP upstream. */
export type OfferingOwner =
  /** `name`: a prompt's own name in the skill (it is listed as `<skill>.<name>`). */
  | { kind: "skill"; skill: string; name?: string }
  /** `pin`: what a read of it must still have (an MCP App's pinned contents). */
  | { kind: "upstream"; upstream: string; version: string; name: string; pin?: Pin };

/** An offering as a caller sees it (`listed`), and its owner. */
export interface Offered<T> {
  listed: T;
  owner: OfferingOwner;
}

/**
 * A federated upstream's Agent Skill as a caller is offered it: its Skills extension entry under
 * the gateway's URIs, and each of its files by the gateway's URI: the file's URI upstream and the
 * digest pinned for it.
 */
export interface OfferedPackage {
  name: string;
  description: string;
  entry: Omit<PackageEntry, "resources"> & { resources: Array<{ uri: string; digest: string }> };
  files: ReadonlyMap<string, { uri: string; digest: string }>;
}

/** Everything a caller is offered besides tools, skills' first (in skill name order), then upstreams' (by name). */
export interface Offerings {
  resources: Array<Offered<Resource>>;
  resourceTemplates: Array<Offered<ResourceTemplate>>;
  prompts: Array<Offered<Prompt>>;
  /** Federated upstreams' packages (Agent Skills; the gateway's own are src/gateway/chain/packages.ts's). */
  packages: Array<Offered<OfferedPackage>>;
  /**
   * Fixed resources the caller may not read (not granted, or left out by the operator), as
   * `withheldKey(upstream, uri)`: a template of the same upstream that happens to match one does not open it.
   */
  withheld?: ReadonlySet<string>;
}

/** The offerings as MCP lists them. */
export interface ListedOfferings {
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
  packages: OfferedPackage[];
}

const skillOfferings = new WeakMap<ToolSummary[], Offerings>();

/**
 * What the skills of a caller's catalog declare, built once per catalog.
 * @example skillOfferingsOf(catalogFor(view, scope.access)).prompts.map((p) => p.listed.name) // ["modbus.decode.explain-frame"]
 */
export function skillOfferingsOf(catalog: ToolSummary[]): Offerings {
  let found = skillOfferings.get(catalog);
  if (!found) {
    const owner = (skill: ToolSummary): OfferingOwner => ({ kind: "skill", skill: skill.name });
    found = {
      resources: catalog.flatMap((s) => (s.resources ?? []).map((listed) => ({ listed, owner: owner(s) }))),
      resourceTemplates: catalog.flatMap((s) => (s.resourceTemplates ?? []).map((listed) => ({ listed, owner: owner(s) }))),
      prompts: catalog.flatMap((s) => (s.prompts ?? []).map((p) => ({ listed: { ...p, name: `${s.name}.${p.name}` }, owner: { ...owner(s), name: p.name } }))),
      packages: [],
    };
    skillOfferings.set(catalog, found);
  }
  return found;
}

const upstreamTools = new WeakMap<object, ReadonlyMap<string, ToolEntry[]>>();

/**
 * The upstreams of a registry view, each with the entries of its tools (name order): read from
 * the deployments' endpoints (`{upstream: {name, …}}`), once per registry generation.
 * @example upstreamsOfView(view).get("everything")?.map((e) => e.name) // ["everything.echo", …]
 */
export function upstreamsOfView(view: RegistryView): ReadonlyMap<string, ToolEntry[]> {
  let found = upstreamTools.get(view.generation);
  if (!found) {
    const byUpstream = new Map<string, ToolEntry[]>();
    for (const name of view.names) {
      const entry = view.tools.get(name)!;
      const upstreams = new Set<string>();
      for (const d of [...entry.versions, ...(entry.degraded ? [entry.degraded] : [])]) if ("upstream" in d.endpoint) upstreams.add(d.endpoint.upstream.name);
      for (const upstream of upstreams) {
        const entries = byUpstream.get(upstream);
        if (entries) entries.push(entry);
        else byUpstream.set(upstream, [entry]);
      }
    }
    upstreamTools.set(view.generation, (found = byUpstream));
  }
  return found;
}

/**
 * The version of an upstream a caller is routed to: the version its calls of the upstream's first
 * tool (by name) go to, by the tool's routing table, its group and sticky key; else the upstream's
 * first registered version.
 * @example routedUpstreamVersion("everything", entries, record, scope.routeKey) // "2.0.0"
 */
export function routedUpstreamVersion(upstream: string, entries: ToolEntry[], record: UpstreamRecord, key: RouteKey): string | undefined {
  for (const entry of entries) {
    const routed = routedDeployment(entry, key);
    if (routed && "upstream" in routed.endpoint && routed.endpoint.upstream.name === upstream && record.versions[routed.version]) return routed.version;
  }
  return Object.entries(record.versions).sort(([, a], [, b]) => a.registeredAt - b.registeredAt)[0]?.[0];
}

/**
 * What one upstream version offers `access`: each resource, template and prompt the operator's
 * selection keeps and the caller's grants name (`<upstream>.<name>`, with the upstream's tags); an
 * MCP App's `ui://` resource only when `apps` (the UIs of the tools the caller may call) names it.
 * @example upstreamOfferingsOf(record, "1.0.0", scope.access).prompts.map((p) => p.listed.name) // ["everything.simple-prompt"]
 */
export function upstreamOfferingsOf(record: UpstreamRecord, version: string, access: Access, apps: ReadonlySet<string> = new Set()): Offerings {
  const offered = record.versions[version]?.offerings;
  const none: Offerings = { resources: [], resourceTemplates: [], prompts: [], packages: [] };
  if (!offered) return none;
  const tags = [...record.tags, upstreamTag(record.name)];
  // An MCP App's UI is the tool's: only a caller that may call a tool showing it sees it, under the
  // gateway's URI for it, and only as pinned (an app the gateway could not pin is not served).
  const isApp = (uri: string) => uri.startsWith("ui://");
  const pinned = new Map((offered.apps ?? []).map((app) => [app.uri, app]));
  const granted = (r: { name: string; uri: string }) =>
    isApp(r.uri) ?
      apps.has(appUriOf(record.name, r.uri)) && pinned.has(r.uri)
    : selects(record, r.name) && access.allowsSkill(`${record.name}.${r.name}`, tags);
  const owner = (name: string): OfferingOwner => {
    const app = pinned.get(name);
    return { kind: "upstream", upstream: record.name, version, name, ...(app ? { pin: { of: "app", digest: app.digest, ui: app.ui } } : {}) };
  };
  const withheld = offered.resources.filter((r) => !granted(r)).map((r) => withheldKey(record.name, isApp(r.uri) ? appUriOf(record.name, r.uri) : r.uri));
  return {
    ...(withheld.length ? { withheld: new Set(withheld) } : {}),
    resources: offered.resources.filter(granted).map((r) => ({ listed: isApp(r.uri) ? { ...r, uri: appUriOf(record.name, r.uri) } : r, owner: owner(r.uri) })),
    resourceTemplates: offered.resourceTemplates
      .filter((t) => granted({ name: t.name, uri: t.uriTemplate }))
      .map((listed) => ({ listed, owner: owner(listed.uriTemplate) })),
    prompts: offered.prompts
      .filter((p) => granted({ name: p.name, uri: "" }))
      .map((p) => ({ listed: { ...p, name: `${record.name}.${p.name}` }, owner: owner(p.name) })),
    packages: (offered.skills ?? [])
      .filter((pkg) => granted({ name: String(pkg.frontmatter.name), uri: "" }))
      .map((pkg) => ({ listed: offeredPackageOf(record.name, pkg), owner: owner(pkg.path) })),
  };
}

const offeredPackages = new WeakMap<UpstreamPackage, OfferedPackage>();

/**
 * A pinned package of `upstream` as it is offered, under the gateway's URIs; once per pinned package
 * object (the isolate's copy of the upstream's record keeps them).
 * @example offeredPackageOf("team", pkg).entry.uri // "skill://team/git-workflow/SKILL.md"
 */
export function offeredPackageOf(upstream: string, pkg: UpstreamPackage): OfferedPackage {
  let offered = offeredPackages.get(pkg);
  if (!offered) {
    const files = new Map(pkg.files.map((file) => [servedPackageUriOf(upstream, pkg.path, file.path), { uri: file.uri, digest: file.digest }]));
    offered = {
      name: String(pkg.frontmatter.name),
      description: String(pkg.frontmatter.description),
      entry: {
        uri: servedPackageUriOf(upstream, pkg.path, pkg.files[0]!.path),
        frontmatter: pkg.frontmatter,
        resources: [...files].map(([uri, { digest }]) => ({ uri, digest })),
      },
      files,
    };
    offeredPackages.set(pkg, offered);
  }
  return offered;
}

/** How `Offerings.withheld` names a fixed resource of an upstream. */
export const withheldKey = (upstream: string, uri: string): string => `${upstream}\n${uri}`;

/** Offerings one after another (the first's come first in every list). */
export function joinOfferings(parts: Offerings[]): Offerings {
  if (parts.length === 1) return parts[0]!;
  const withheld = parts.flatMap((p) => [...(p.withheld ?? [])]);
  return {
    ...(withheld.length ? { withheld: new Set(withheld) } : {}),
    resources: parts.flatMap((p) => p.resources),
    resourceTemplates: parts.flatMap((p) => p.resourceTemplates),
    prompts: parts.flatMap((p) => p.prompts),
    packages: parts.flatMap((p) => p.packages),
  };
}

const listed = new WeakMap<Offerings, ListedOfferings>();

/**
 * The offerings as MCP's lists show them (without their owners), once per offerings object.
 * @example listedOf(offerings).resources.map((r) => r.uri)
 */
export function listedOf(offerings: Offerings): ListedOfferings {
  let lists = listed.get(offerings);
  if (!lists) {
    lists = {
      resources: offerings.resources.map((o) => o.listed),
      resourceTemplates: offerings.resourceTemplates.map((o) => o.listed),
      prompts: offerings.prompts.map((o) => o.listed),
      packages: offerings.packages.map((o) => o.listed),
    };
    listed.set(offerings, lists);
  }
  return lists;
}
