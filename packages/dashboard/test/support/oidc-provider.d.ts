/** The part of the `oidc-provider` package (which ships no types) the sign-in test uses. */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  interface Account { accountId: string; claims(): Promise<Record<string, unknown>> }
  export default class Provider {
    constructor(issuer: string, configuration: {
      clients: Record<string, unknown>[];
      jwks: { keys: Record<string, unknown>[] };
      claims: Record<string, string[]>;
      conformIdTokenClaims: boolean;
      ttl: Record<string, number>;
      issueRefreshToken(): Promise<boolean>;
      findAccount(ctx: unknown, id: string): Promise<Account>;
    });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
