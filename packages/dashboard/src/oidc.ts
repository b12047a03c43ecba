/**
 * OpenID Connect sign-in (authorization code with PKCE, a public client: no secret in the browser) against
 * any provider with a discovery document. The broker names the provider in /dashboard-config.json
 * (DASHBOARD_OIDC_*). The bearer sent to the broker is the access token when it is a JWT (Keycloak, Entra,
 * Auth0 with an audience), else the ID token (Google and providers with opaque access tokens); the broker
 * verifies it against the provider's JWKS (JWT_JWKS_URL). The token lives in this tab's sessionStorage like a
 * pasted one; the refresh token only in memory. Shortly before the token expires it is renewed with the
 * refresh token when there is one, else the prompt comes back ("Your sign-in expired").
 */
import { ApiError, external } from './api.js';
import { navigate } from './router.js';
import { session, setToken, tokenClaims, tokenExpiry } from './session.js';
import { createStore } from './store.js';

/** What the broker serves at /dashboard-config.json. */
interface DashboardSettings { oidc: { issuer: string; clientId: string; scopes: string; audience: string | null } | null }
interface Discovery { issuer: string; authorization_endpoint: string; token_endpoint: string; end_session_endpoint?: string }
interface TokenResponse { access_token?: string; id_token?: string; refresh_token?: string; expires_in?: number }
interface Pending { state: string; verifier: string; nonce: string; returnTo: string }

const PENDING_KEY = 'queen.dashboard.oidc-pending';
/** Renew this long before the token's `exp`. */
const RENEW_BEFORE_MS = 30_000;

/** The sign-in as the UI sees it. */
export const oidc = createStore<{ provider: string | null; error: string | null; busy: boolean }>({ provider: null, error: null, busy: false });

let settings: DashboardSettings['oidc'] = null;
let discovery: Discovery | null = null;
let refreshToken: string | null = null;
let idToken: string | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;

const redirectUri = (): string => `${location.origin}/`;
const base64url = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const random = (n = 32): string => base64url(crypto.getRandomValues(new Uint8Array(n)));
const isJwt = (token: string | undefined): token is string => token !== undefined && token.split('.').length === 3 && tokenClaims(token) !== null;

async function discover(): Promise<Discovery> {
  if (settings === null) throw new Error('sign-in is not configured');
  discovery ??= await external<Discovery>(`${settings.issuer}/.well-known/openid-configuration`);
  return discovery;
}

/** Reads the broker's settings, finishes a sign-in that came back from the provider, and plans renewal. */
export async function initAuth(): Promise<void> {
  try {
    settings = (await external<DashboardSettings>('/dashboard-config.json')).oidc;
  } catch {
    settings = null; // an older broker or DASHBOARD_DIR elsewhere: token pasting only
  }
  if (settings === null) return;
  oidc.set({ ...oidc.get(), provider: new URL(settings.issuer).host });
  const params = new URLSearchParams(location.search);
  if (params.has('state') && (params.has('code') || params.has('error'))) {
    await complete(params);
    return;
  }
  const s = session.get();
  if (s.token !== null && s.source === 'oidc') schedule(s.token);
}

/** Leaves for the provider's sign-in page (the PKCE verifier and state wait in sessionStorage). */
export async function signIn(): Promise<void> {
  oidc.set({ ...oidc.get(), busy: true, error: null });
  try {
    if (crypto.subtle === undefined) throw new Error('sign-in needs the dashboard on HTTPS (or localhost)');
    const d = await discover();
    const pending: Pending = { state: random(), verifier: random(48), nonce: random(), returnTo: `${location.pathname}${location.search}` };
    const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(pending.verifier))));
    sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
    const url = new URL(d.authorization_endpoint);
    const query: Record<string, string> = {
      response_type: 'code', client_id: settings!.clientId, redirect_uri: redirectUri(), scope: settings!.scopes,
      state: pending.state, nonce: pending.nonce, code_challenge: challenge, code_challenge_method: 'S256',
      ...(settings!.audience === null ? {} : { audience: settings!.audience }),
    };
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    location.assign(url.toString());
  } catch (error) {
    oidc.set({ ...oidc.get(), busy: false, error: `Sign-in failed: ${(error as Error).message}` });
  }
}

async function complete(params: URLSearchParams): Promise<void> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const pending = raw === null ? null : (JSON.parse(raw) as Pending);
  navigate(pending?.returnTo ?? '/', true); // the code leaves the URL (and the history)
  try {
    if (pending === null || params.get('state') !== pending.state) throw new Error('the answer does not match a sign-in started in this tab');
    if (params.has('error')) throw new Error(params.get('error_description') ?? params.get('error') ?? 'refused');
    const d = await discover();
    const tokens = await external<TokenResponse>(d.token_endpoint, {
      grant_type: 'authorization_code', code: params.get('code') ?? '', redirect_uri: redirectUri(), client_id: settings!.clientId, code_verifier: pending.verifier,
    });
    if (tokens.id_token !== undefined && tokenClaims(tokens.id_token)?.nonce !== pending.nonce) throw new Error('the ID token does not carry this sign-in\'s nonce');
    adopt(tokens);
  } catch (error) {
    oidc.set({ ...oidc.get(), error: `Sign-in failed: ${(error as Error).message}` });
    setToken(null);
  }
}

function adopt(tokens: TokenResponse): void {
  const bearer = isJwt(tokens.access_token) ? tokens.access_token : tokens.id_token;
  if (!isJwt(bearer)) throw new Error('the provider returned no JWT (neither the access token nor an ID token)');
  refreshToken = tokens.refresh_token ?? refreshToken;
  idToken = tokens.id_token ?? idToken;
  oidc.set({ ...oidc.get(), error: null, busy: false });
  setToken(bearer, 'oidc');
  schedule(bearer);
}

function schedule(token: string): void {
  clearTimeout(timer);
  const exp = tokenExpiry(token);
  if (exp === null) return;
  timer = setTimeout(() => void renew(), Math.max(0, exp * 1000 - Date.now() - RENEW_BEFORE_MS));
}

/** Renews with the refresh token; without one (or when it fails) asks to sign in again. */
async function renew(): Promise<void> {
  if (refreshToken !== null) {
    try {
      const d = await discover();
      adopt(await external<TokenResponse>(d.token_endpoint, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: settings!.clientId }));
      return;
    } catch (error) {
      refreshToken = null;
      if (!(error instanceof ApiError)) throw error;
    }
  }
  setToken(null, 'oidc', 'Your sign-in expired. Sign in again.');
}

/** Forgets the token; after an OIDC sign-in also ends the provider's session when it offers that. */
export async function signOut(): Promise<void> {
  const wasOidc = session.get().source === 'oidc';
  const hint = idToken;
  clearTimeout(timer);
  refreshToken = null;
  idToken = null;
  setToken(null);
  if (!wasOidc || settings === null) return;
  const d = await discover().catch(() => null);
  if (d?.end_session_endpoint === undefined) return;
  const url = new URL(d.end_session_endpoint);
  url.searchParams.set('client_id', settings.clientId);
  url.searchParams.set('post_logout_redirect_uri', redirectUri());
  if (hint !== null) url.searchParams.set('id_token_hint', hint);
  location.assign(url.toString());
}
