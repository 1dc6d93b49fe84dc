/**
 * One request's view of everything its caller may use, built lazily and kept for the request:
 * the tools (src/gateway/chain/catalog.ts), the resources, templates and prompts offered besides them
 * (src/gateway/chain/offerings.ts) and the Agent Skills packages (src/gateway/chain/packages.ts) — each
 * through the caller's grants, narrowed by the door it came in by, at the versions routed to it.
 * `resolve` turns an operation into the target that answers it, or nothing: what a caller cannot
 * see does not resolve, exactly as what does not exist.
 */
import { type Access, mayCall } from "../../identity/auth/access.js";
import type { ReachableSkill } from "../../protocols/a2a/index.js";
import { SKILL_URI_SCHEME, parseSkillUri } from "../../registry/packages/index.js";
import { type SecretsMode, UPSTREAM_GUARDRAILS, strictestOf } from "../../policies/guardrails/index.js";
import { matchUriTemplate } from "../../protocols/mcp/index.js";
import { routedDeployment } from "../../registry/routing/index.js";
import type { RegistryView, ToolEntry } from "../../registry/deployments/snapshot.js";
import { type ToolSummary, catalogFor } from "./catalog.js";
import { callableEntry, manifestOf, registryView } from "./lookup.js";
import {
  type Offered,
  type OfferingOwner,
  type Offerings,
  joinOfferings,
  routedUpstreamVersion,
  skillOfferingsOf,
  upstreamOfferingsOf,
  upstreamsOfView,
  withheldKey,
} from "./offerings.js";
import { type Target, upstreamAnswererOf } from "./operation.js";
import { type PackageCatalog, packageCatalog } from "./packages.js";
import type { GatewayRuntime } from "./runtime.js";
import type { CallScope } from "./scope.js";

/** An agent a caller may reach: who it is, the version routed to the caller, and its skills the caller may call (by id). */
export interface ReachableAgent {
  agent: { name: string; description: string; version: string };
  version: string;
  /** By skill id, in the order of their tools' names; each with its tool's name. */
  skills: Array<ReachableSkill & { tool: string }>;
}

export class CallerCatalog {
  #view?: Promise<RegistryView>;
  #offerings?: Promise<Offerings>;
  #packages?: Promise<PackageCatalog>;
  readonly #agents = new Map<string, Promise<ReachableAgent | undefined>>();

  constructor(
    readonly runtime: GatewayRuntime,
    readonly scope: CallScope,
  ) {}

  /** What the caller may see and call through the door it came in by. */
  get access(): Access {
    return this.scope.access;
  }

  /** The registry as this request sees it (read once per request). */
  view(): Promise<RegistryView> {
    return (this.#view ??= registryView(this.runtime, this.scope.trace));
  }

  /** The tools the caller may call, by their own names, in name order. */
  async tools(): Promise<ToolSummary[]> {
    return catalogFor(await this.view(), this.scope.access);
  }

  /**
   * The tool `name` if this caller may call it (`mayCall`, src/identity/auth/access.ts), else undefined:
   * the one answer to "may this caller call X".
   * @example await catalog.tool("text.summarize") // the entry, or undefined
   */
  async tool(name: string): Promise<ToolEntry | undefined> {
    return (await callableEntry(this.runtime, this.scope, name)).entry;
  }

  /**
   * The resources, templates and prompts the caller may use: its skills' own, then its
   * upstreams'; each prompt under the name the door lists it by (a virtual server's alias).
   */
  offerings(): Promise<Offerings> {
    const { listedName } = this.scope;
    return (this.#offerings ??= this.#readOfferings().then((offerings) => (listedName ? withPromptsNamed(offerings, listedName) : offerings)));
  }

  /** The Agent Skills packages the caller sees, each at the version routed to it. */
  packages(): Promise<PackageCatalog> {
    return (this.#packages ??= this.view().then((view) => packageCatalog(this.runtime, view, this.scope.access, this.scope.routeKey)));
  }

  /**
   * Who serves the resource `uri` to this caller: a package's file (`skill://<package>/…`), a
   * federated upstream's Agent Skill's file, or a skill's or an upstream's resource or template;
   * undefined when nothing it may read has that URI.
   * @example await catalog.resourceTarget("units://table") // { owner: "skill", skill: "units.convert", … }
   */
  async resourceTarget(uri: string): Promise<Target | undefined> {
    const file = parseSkillUri(uri);
    const seen = file && (await this.packages()).find(file.name);
    if (seen)
      return seen.record.versions[seen.version]?.files.some((f) => f.path === file!.path) ?
          { owner: "package", package: seen.name, version: seen.version, path: file!.path }
        : undefined;
    // Not a package's: a federated upstream's Agent Skill's file (package and upstream names never meet).
    if (uri.startsWith(SKILL_URI_SCHEME)) return federatedPackageTarget(await this.offerings(), uri);
    return resourceTarget(await this.offerings(), uri);
  }

  /** Who serves the prompt this caller knows as `name`; undefined when it may use none of that name. */
  async promptTarget(name: string): Promise<Target | undefined> {
    const prompt = (await this.offerings()).prompts.find((p) => p.listed.name === name);
    return prompt && targetOf(prompt.owner);
  }

  /** Who serves the resource template `uriTemplate` to this caller; undefined when it may use none. */
  async templateTarget(uriTemplate: string): Promise<Target | undefined> {
    const template = (await this.offerings()).resourceTemplates.find((t) => t.listed.uriTemplate === uriTemplate);
    return template && targetOf(template.owner, template.listed.uriTemplate);
  }

  /**
   * The federated A2A agent `name` as this caller reaches it: the version routed to it (by its
   * skills' routing tables, as an upstream's offerings are), who that version's card said the agent
   * is, and the agent's skills it may call, each a tool `<agent>.<skill id>`; undefined when it is
   * no A2A upstream, or the caller may call none of its skills (the same answer).
   * @example await catalog.agent("text") // { agent: { name: "Text agent", … }, version: "1.0.0", skills: [{ id: "summarize", tool: "text.summarize", … }] }
   */
  agent(name: string): Promise<ReachableAgent | undefined> {
    let reached = this.#agents.get(name);
    if (!reached) this.#agents.set(name, (reached = this.#readAgent(name)));
    return reached;
  }

  /** `agent`, read (once per request and name: the card's resolve and its answer ask the same). */
  async #readAgent(name: string): Promise<ReachableAgent | undefined> {
    const record = await this.runtime.upstreams.records.cached(name);
    if (record?.kind !== "a2a") return undefined;
    const { access, routeKey } = this.scope;
    const entries = upstreamsOfView(await this.view()).get(name) ?? [];
    const version = routedUpstreamVersion(name, entries, record, routeKey);
    const agent = version ? record.versions[version]?.agent : undefined;
    if (!version || !agent) return undefined;
    const skills = entries.flatMap((entry) => {
      const deployment = mayCall(access, entry) ? routedDeployment(entry, routeKey) : undefined;
      const endpoint = deployment && "upstream" in deployment.endpoint ? deployment.endpoint.upstream : undefined;
      if (endpoint?.kind !== "a2a") return [];
      const { manifest } = deployment!;
      return [{ id: endpoint.skill, tool: entry.name, name: manifest.title ?? endpoint.skill, description: manifest.description }];
    });
    return skills.length ? { agent, version, skills } : undefined;
  }

  /**
   * A token of what the caller's resources are served from: new whenever the registry or the
   * packages served to the caller change (what `servedBy` answers can change only then).
   */
  async revision(): Promise<string> {
    return `${(await this.view()).rev}:${(await this.packages()).key()}`;
  }

  /**
   * What serves the resource `uri` to this caller now — the skill's routed deployment, the upstream
   * or package version (and file) — as one string; undefined when the caller cannot read it. A
   * subscribed resource is "updated" when this changes (src/mcp/listen.ts).
   * @example await catalog.servedBy("skill://modbus-triage/SKILL.md") // "package:modbus-triage@1.1.0/SKILL.md"
   */
  async servedBy(uri: string): Promise<string | undefined> {
    const target = await this.resourceTarget(uri);
    return target && this.servingOf(target);
  }

  /**
   * `servedBy` of a target already resolved (a subscription's: `subscribed`, src/gateway/chain/answers.ts).
   * @example await catalog.servingOf({ owner: "upstream", upstream: "crm", version: "2.0.0", name: "crm://notes" }) // "upstream:crm@2.0.0"
   */
  async servingOf(target: Target): Promise<string | undefined> {
    switch (target.owner) {
      case "gateway":
        return undefined;
      case "package":
        return `package:${target.package}@${target.version}/${target.path ?? ""}`;
      case "upstream":
        return `${upstreamAnswererOf(target)}${target.pin ? `/${target.pin.digest}` : ""}`;
      case "skill": {
        const entry = (await this.view()).tools.get(target.skill);
        return `skill:${(entry && routedDeployment(entry, this.scope.routeKey))?.id ?? target.skill}`;
      }
    }
  }

  /**
   * How strict the content path is for what `target` answers: the strictest of what its owner says
   * (a skill's manifest, default off; an upstream's registration, default redact) and the door (a
   * virtual server's definition). A package or the gateway itself says nothing of its own.
   * @example await catalog.secretsModeOf({ owner: "upstream", upstream: "crm", version: "1.0.0", name: "crm://notes" }) // "redact"
   */
  async secretsModeOf(target: Target): Promise<SecretsMode> {
    const door = this.scope.guardrails?.secrets;
    switch (target.owner) {
      case "upstream": {
        // A record that cannot be read now is held to the upstream default, never to less.
        const record = await this.runtime.upstreams.records.cached(target.upstream).catch(() => undefined);
        return strictestOf((record?.guardrails ?? UPSTREAM_GUARDRAILS).secrets, door);
      }
      case "skill": {
        const entry = (await this.view()).tools.get(target.skill);
        return strictestOf(entry && manifestOf(entry).guardrails?.secrets, door);
      }
      case "package":
      case "gateway":
        return strictestOf(door);
    }
  }

  async #readOfferings(): Promise<Offerings> {
    const view = await this.view();
    const { access, routeKey } = this.scope;
    const own = skillOfferingsOf(catalogFor(view, access));
    // Upstreams with tools in the view, and those without (one may serve only resources, prompts or
    // Agent Skills: its offerings then come from its first version). A store outage hides the latter, not the rest.
    const withTools = upstreamsOfView(view);
    const names = new Set([...withTools.keys(), ...(await this.runtime.upstreams.records.names().catch(() => []))]);
    const upstreams = [...names].sort().map((name) => [name, withTools.get(name) ?? []] as const);
    if (!upstreams.length) return own;
    // The MCP Apps of the tools this caller may call, each upstream's from its own tools only: a
    // skill's manifest naming another's app URI opens nothing.
    const callable = new Map((await this.tools()).map((tool) => [tool.name, tool]));
    const appsOf = (entries: ToolEntry[]) => new Set(entries.flatMap((entry) => callable.get(entry.name)?.ui?.resourceUri ?? []));
    const theirs = await Promise.all(
      upstreams.map(async ([name, entries]) => {
        const record = await this.runtime.upstreams.records.cached(name).catch(() => undefined); // a store outage hides them, not the rest
        const version = record && routedUpstreamVersion(name, entries, record, routeKey);
        return record && version ? [upstreamOfferingsOf(record, version, access, appsOf(entries))] : [];
      }),
    );
    return joinOfferings([own, ...theirs.flat()]);
  }
}

/** The upstream version that serves a federated Agent Skill's file, asked by its own URI there, with the digest pinned for it. */
function federatedPackageTarget(offerings: Offerings, uri: string): Target | undefined {
  for (const { listed, owner } of offerings.packages) {
    const file = listed.files.get(uri);
    if (file && owner.kind === "upstream")
      return { owner: "upstream", upstream: owner.upstream, version: owner.version, name: file.uri, pin: { of: "skill-file", digest: file.digest } };
  }
  return undefined;
}

/** Offerings with each prompt listed (and so found) by `listedName` of its own name. */
function withPromptsNamed(offerings: Offerings, listedName: (name: string) => string): Offerings {
  return { ...offerings, prompts: offerings.prompts.map((p) => ({ ...p, listed: { ...p.listed, name: listedName(p.listed.name) } })) };
}

/** The target of an offering's owner (a template's, with the template it matched). */
function targetOf(owner: OfferingOwner, template?: string): Target {
  const matched = template === undefined ? {} : { template };
  return owner.kind === "skill" ?
      { owner: "skill", skill: owner.skill, ...(owner.name !== undefined ? { name: owner.name } : {}), ...matched }
    : { owner: "upstream", upstream: owner.upstream, version: owner.version, name: owner.name, ...(owner.pin ? { pin: owner.pin } : {}), ...matched };
}

/**
 * Who answers a read of `uri`: a skill that declares it (a fixed resource, then a template that
 * matches), else an upstream that does, in the same order — an upstream never takes over a URI a
 * skill serves, and a template never opens a fixed resource the caller may not read.
 */
function resourceTarget(offerings: Offerings, uri: string): Target | undefined {
  for (const kind of ["skill", "upstream"] as const) {
    const ofKind = <T>(list: Array<Offered<T>>) => list.filter((o) => o.owner.kind === kind);
    const fixed = ofKind(offerings.resources).find((r) => r.listed.uri === uri);
    if (fixed) return targetOf(fixed.owner);
    const opens = (owner: OfferingOwner) => owner.kind !== "upstream" || !offerings.withheld?.has(withheldKey(owner.upstream, uri));
    const template = ofKind(offerings.resourceTemplates).find((t) => opens(t.owner) && matchUriTemplate(t.listed.uriTemplate, uri));
    if (template) return { ...targetOf(template.owner, template.listed.uriTemplate), ...(template.owner.kind === "upstream" ? { name: uri } : {}) };
  }
  return undefined;
}
