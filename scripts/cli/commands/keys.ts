/** `skillmesh keys create|list|update|revoke …`: API keys, their grants and limits. */
import { KeyCreateRequestSchema, KeyCreatedSchema, KeyListSchema, KeyUpdateRequestSchema, KeyViewSchema } from "../../../src/admin/api/index.js";
import { type CliIO, CliError, answerOf, api } from "../io.js";
import { type CommandLine, USAGE, requestOf } from "../options.js";
import { printKeys } from "../print.js";

/** `--admin none` / `--rate none` clear a grant on update; on create they mean "not given". */
const orNull = (value: unknown) => (value === "none" ? null : value);

export async function run(io: CliIO, { positionals, values }: CommandLine): Promise<void> {
  const [, action, which] = positionals;
  const grants = { skills: values.skills, tags: values.tags, groups: values.groups, admin: values.admin, rate: values.rate, quota: values.quota };
  switch (action) {
    case "create": {
      const request = requestOf(KeyCreateRequestSchema, { ...grants, name: values.name, admin: orNull(values.admin) ?? undefined });
      if (!request.skills.length && !request.tags.length && !request.admin) {
        throw new CliError("a key that may call nothing and administer nothing is useless: give --skills, --tags or --admin");
      }
      const { key, view } = answerOf(KeyCreatedSchema, await api(io, "POST", "/keys", request));
      io.out(`Created key ${view.id} (${view.name}). It is shown only now; store it as a secret:`);
      io.out(`  ${key}`);
      printKeys(io, [view]);
      return;
    }
    case "list":
      return printKeys(io, answerOf(KeyListSchema, await api(io, "GET", "/keys")).keys);
    case "update": {
      if (!which) throw new CliError(`keys update needs a key id or name\n${USAGE}`);
      const changes = Object.fromEntries(
        Object.entries({ ...grants, name: values["new-name"] })
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, orNull(v)]),
      );
      if (!Object.keys(changes).length) throw new CliError("keys update needs something to change, e.g. --skills 'text.*' or --rate 100/min");
      const view = answerOf(KeyViewSchema, await api(io, "PATCH", `/keys/${encodeURIComponent(which)}`, requestOf(KeyUpdateRequestSchema, changes)));
      io.out(`Updated key ${view.id} (${view.name}); every gateway isolate has it within about a second.`);
      return printKeys(io, [view]);
    }
    case "revoke": {
      if (!which) throw new CliError(`keys revoke needs a key id or name\n${USAGE}`);
      const view = answerOf(KeyViewSchema, await api(io, "DELETE", `/keys/${encodeURIComponent(which)}`));
      io.out(`Revoked key ${view.id} (${view.name}); it stops working everywhere within about a second.`);
      return;
    }
    default:
      throw new CliError(`keys takes create, list, update or revoke\n${USAGE}`);
  }
}
