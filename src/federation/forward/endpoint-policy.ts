/**
 * Which skill URLs a gateway registers and calls. A registration makes the gateway fetch the URL
 * (its manifest) and forward calls to it, so an admin key — or whoever holds one — must not be
 * able to point it at the gateway's own network: cloud metadata at 169.254.169.254, a loopback
 * service, a private range. Outside local development a skill URL is `https` to a public host;
 * credentials in a URL are never taken. (A public name that resolves to a private address
 * cannot be seen from a Worker; on Cloudflare a Worker's fetch cannot reach private networks.)
 */
import ipaddr from "ipaddr.js";

export interface EndpointPolicy {
  /** Local development: `http` and loopback or private hosts are allowed (`SKILLMESH_ALLOW_PRIVATE_ENDPOINTS`, src/gateway/config). */
  allowPrivate: boolean;
}

/** Names that resolve to this machine or a local network by convention (RFC 6761, 6762, 8375). */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|localdomain|home\.arpa|lan)$/i;

/**
 * Why a URL cannot be a skill endpoint (or, naming `what`, another URL the gateway calls: a job's
 * callback) under `policy`, or undefined when it can. The URL is
 * read as the WHATWG parser reads it, so `http://2130706433/` and `http://0x7f.1/` are the
 * loopback address they are.
 * @example endpointRefusal("https://169.254.169.254/", { allowPrivate: false }) // "… a link-local address …"
 */
export function endpointRefusal(raw: string, policy: EndpointPolicy, what = "a skill URL"): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${what} must be a URL`;
  }
  if (url.username || url.password) return `${what} must not carry credentials (user:password@)`;
  if (url.protocol !== "https:" && !(policy.allowPrivate && url.protocol === "http:")) return `${what} must use https`;
  if (policy.allowPrivate) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (ipaddr.isValid(host)) {
    const range = ipaddr.process(host).range();
    return range === "unicast" ? undefined : `${what} must name a public host, not a ${range} address`;
  }
  if (!host.includes(".") || LOCAL_NAME.test(host.replace(/\.$/, ""))) return `${what} must name a public host, not ${host}`;
  return undefined;
}
