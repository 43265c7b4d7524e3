// A file only its owner may read, for output that holds credentials (a saved snapshot).

import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to `path`, which ends as a regular file of mode 0600 whatever was there: the
 * text goes to a new file beside it (created exclusively, so no symlink or file planted under
 * that name is written through), which then replaces the path. A symlink at the path is
 * replaced, not followed, and an existing file's wider mode does not survive.
 */
export function writeOwnerOnlyFile(path: string, text: string): void {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    try {
      // The umask can only narrow the mode given to open; set it exactly.
      fchmodSync(fd, 0o600);
      writeFileSync(fd, text);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
