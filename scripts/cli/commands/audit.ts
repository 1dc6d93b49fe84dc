/** `skillmesh audit [filters]`: a page of the audit log, newest first. */
import { AuditListSchema, AuditQuerySchema } from "../../../src/admin/api/index.js";
import { type CliIO, answerOf, api } from "../io.js";
import { type CommandLine, requestOf } from "../options.js";
import { printAudit } from "../print.js";

export async function run(io: CliIO, line: CommandLine): Promise<void> {
  const { values } = line;
  const filters = {
    caller: values.caller,
    skill: values.skill,
    outcome: values.outcome,
    type: values.type,
    since: values.since,
    limit: values.limit,
    cursor: values.cursor,
  };
  const query = requestOf(AuditQuerySchema, Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)));
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const page = answerOf(AuditListSchema, await api(io, "GET", `/audit?${search}`));
  printAudit(io, page.entries);
  if (page.nextCursor) io.out(`older entries: skillmesh audit … --cursor ${page.nextCursor}`);
}
