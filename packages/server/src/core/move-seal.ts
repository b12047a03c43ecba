/**
 * Seals the move target's password before it is stored (docs/decisions.md "Database move: where brokers learn
 * the target"): AES-256-GCM under a key every broker of the deployment derives the same way, HKDF-SHA256 of
 * QUEEN_ENCRYPTION_KEY when configured, else of the credentials every broker already uses for the source.
 * Reading the row thus gives nothing without what opening the source database needs anyway.
 */
import crypto from 'node:crypto';

/** The sealing key from the broker's secret material. */
export function moveKey(material: Buffer | string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', material, 'queen', 'queen database move target', 32));
}

/** `iv(12) | tag(16) | ciphertext` of `text`. */
export function seal(key: Buffer, text: string): Buffer {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The text sealed by `seal` under the same key; throws when the key differs or the bytes were altered. */
export function unseal(key: Buffer, sealed: Buffer): string {
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(12, 28));
  return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
}
