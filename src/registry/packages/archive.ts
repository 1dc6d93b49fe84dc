/**
 * A package as one `.tar.gz` (the discovery draft's `archive` distribution: the files at the
 * archive's root, `SKILL.md` first), built once when a version is registered — its bytes stored
 * by digest beside the files, so the digest the index gives is the digest of what is served.
 * Tar by modern-tar (ustar with PAX headers: paths past 100 characters stay whole), gzip by the
 * runtime's CompressionStream. Entries carry no owner or time (uid 0, mtime 0); a file under
 * `scripts/` (the format's folder of what an agent runs) is executable (0755), the rest 0644.
 */
import { packTar } from "modern-tar";
import type { PackageFile } from "./index.js";

/** The media type an archive is served with (as the draft asks for `.tar.gz`). */
export const ARCHIVE_CONTENT_TYPE = "application/gzip";
/** The suffix of an archive's URL. */
export const ARCHIVE_SUFFIX = ".tar.gz";

/**
 * The `.tar.gz` of a package's files, in the order given.
 * @example const bytes = await archiveOf([{ path: "SKILL.md", bytes }, { path: "references/A.md", bytes: more }])
 */
export async function archiveOf(files: PackageFile[]): Promise<Uint8Array> {
  const tar = await packTar(
    files.map((file) => ({
      header: { name: file.path, size: file.bytes.byteLength, type: "file" as const, mode: modeOf(file.path), uid: 0, gid: 0, mtime: new Date(0) },
      body: file.bytes,
    })),
  );
  const gzipped = new Blob([tar]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(gzipped).arrayBuffer());
}

/** A file's mode in the archive: executable under `scripts/`. */
export const modeOf = (path: string): number => (path.startsWith("scripts/") ? 0o755 : 0o644);
