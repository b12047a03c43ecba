/** The CLI's version line: package version plus the commit and date the build recorded in dist/build-info.json. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function readJson(file: string): Record<string, string> {
  try {
    return JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, file), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** `queenctl <ver> (commit <sha>, built <date>)`. */
export function versionLine(): string {
  const info = readJson('dist/build-info.json');
  return `queenctl ${readJson('package.json').version ?? '0.0.0'} (commit ${info.commit ?? 'unknown'}, built ${info.date ?? 'unknown'})`;
}
