/**
 * `config_hash` (docs/streams-sdk.md): lowercase-hex SHA-256 of `JSON.stringify` over one descriptor per operator,
 * in chain order. Functions are not hashed, so every SDK hashes a given chain shape identically and can resume
 * another SDK's query. SHA-256 comes from WebCrypto (`crypto.subtle`: Node >= 20 and browsers), no import.
 */

/** Lowercase-hex SHA-256 of a UTF-8 string. */
export async function sha256Hex(text: string): Promise<string> {
  const subtle = (globalThis as { crypto?: Crypto }).crypto?.subtle;
  if (!subtle) throw new Error('config_hash needs WebCrypto (crypto.subtle): Node >= 20, or a browser page served over https');
  const digest = await subtle.digest('SHA-256', new TextEncoder().encode(text));
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** The hash of a chain's descriptors. */
export function configHashOf(descriptors: ReadonlyArray<Record<string, unknown>>): Promise<string> {
  return sha256Hex(JSON.stringify(descriptors));
}
