/**
 * Static serving of the web dashboard (docs/dashboard.md): the built bundle of packages/dashboard at `/`.
 *
 * It runs only for requests no API route matched, so it can never shadow one. GET and HEAD only; paths under
 * `/api/`, `/health`, `/metrics`, `/streams/` and `/internal/` are left to the JSON 404. A file under the root
 * is served as is; a miss under `/assets/` is a plain 404; any other miss gets `index.html` (history-mode
 * fallback, so `/queues/orders` deep-links). A decoded path that leaves the root is refused with 403.
 * Hashed assets are immutable for a year, `index.html` is never cached, the rest is cached for an hour.
 * A `<file>.gz` written by the build is sent instead of the file when the client accepts gzip.
 */
import type { DashboardOidc } from '../config.js';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { dashboardSecurityHeaders } from './cors.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.wasm': 'application/wasm',
};
const NEVER_SPA = /^\/(api|health|metrics|streams|internal)(\/|$)/;
const HASHED = /\.[0-9a-f]{8,}\.(js|css)$/i;

/** Answers a request no route matched; resolves false when the caller should send its 404 instead. */
/** What the dashboard reads at start from SETTINGS_PATH (public: no secret in it). */
export interface DashboardSettings {
  /** The OpenID Connect sign-in, or null (token pasting only). */
  oidc: DashboardOidc | null;
}

/** Where the dashboard's settings are served. */
export const SETTINGS_PATH = '/dashboard-config.json';

export type StaticHandler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

function plain(res: ServerResponse, status: number, text: string): true {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
  return true;
}

function cacheControl(relative: string): string {
  if (relative === 'index.html') return 'no-cache, no-store, must-revalidate';
  if (relative.startsWith('assets/') || HASHED.test(relative)) return 'public, max-age=31536000, immutable';
  return 'public, max-age=3600';
}

async function regularFile(file: string): Promise<fs.Stats | null> {
  try {
    const stat = await fs.promises.stat(file);
    return stat.isFile() ? stat : null;
  } catch {
    return null;
  }
}

/**
 * The handler for a bundle directory, or null (with the reason) when the directory holds no `index.html`
 * (the dashboard was not built): the broker then serves the API alone.
 */
export function createStaticHandler(dir: string, settings: DashboardSettings = { oidc: null }): { handler: StaticHandler } | { missing: string } {
  const root = path.resolve(dir);
  const settingsBody = JSON.stringify(settings);
  const securityHeaders = dashboardSecurityHeaders(settings.oidc?.issuer ?? null);
  if (!fs.existsSync(path.join(root, 'index.html'))) return { missing: path.join(root, 'index.html') };

  async function send(req: IncomingMessage, res: ServerResponse, file: string, stat: fs.Stats): Promise<true> {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const headers: Record<string, string | number> = {
      'Content-Type': CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
      'Cache-Control': cacheControl(relative),
      'X-Content-Type-Options': 'nosniff',
      ...securityHeaders,
      Vary: 'Accept-Encoding',
    };
    let source = file;
    let size = stat.size;
    if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      const gz = await regularFile(`${file}.gz`);
      if (gz !== null) {
        source = `${file}.gz`;
        size = gz.size;
        headers['Content-Encoding'] = 'gzip';
      }
    }
    headers['Content-Length'] = size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return true;
    }
    await new Promise<void>((resolve) => {
      const stream = fs.createReadStream(source);
      stream.once('error', () => {
        res.destroy();
        resolve();
      });
      stream.once('end', resolve);
      stream.pipe(res);
    });
    return true;
  }

  const handler: StaticHandler = async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const rawPath = q === -1 ? url : url.slice(0, q);
    if (NEVER_SPA.test(rawPath)) return false;
    let decoded: string;
    try {
      decoded = decodeURIComponent(rawPath);
    } catch {
      return plain(res, 400, 'Bad Request');
    }
    if (decoded.includes('\0')) return plain(res, 400, 'Bad Request');
    if (decoded === SETTINGS_PATH) {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-cache', 'Content-Length': Buffer.byteLength(settingsBody) });
      res.end(req.method === 'HEAD' ? undefined : settingsBody);
      return true;
    }
    const file = path.resolve(root, `.${decoded.replace(/\\/g, '/')}`);
    if (file !== root && !file.startsWith(root + path.sep)) return plain(res, 403, 'Forbidden');
    const stat = file === root ? null : await regularFile(file);
    if (stat !== null) return send(req, res, file, stat);
    if (decoded.startsWith('/assets/')) return plain(res, 404, 'Not Found');
    const index = path.join(root, 'index.html');
    const indexStat = await regularFile(index);
    if (indexStat === null) return plain(res, 404, 'Not Found');
    return send(req, res, index, indexStat);
  };
  return { handler };
}
