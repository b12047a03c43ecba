// Registers the resolution hook of official-resolve.mjs for the official Queen JS client. Import it (or pass
// it to `node --import`) before importing the client; QUEEN_COMPAT_DIR overrides `<repo>/../shared/compat`.
import fs from 'node:fs';
import { register } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
// Real path: Node resolves symlinks, so the client's modules have URLs under the link's target.
const compat = fs.realpathSync(process.env.QUEEN_COMPAT_DIR ?? path.resolve(here, '../../../../../shared/compat'));
register('./official-resolve.mjs', import.meta.url, {
  data: { compatPrefix: pathToFileURL(compat).href, resolveFrom: import.meta.url },
});
