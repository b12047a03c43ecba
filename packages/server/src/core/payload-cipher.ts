/**
 * Encryption at rest (docs/api.md 9.6): AES-256-GCM over a payload's JSON text, and reading stored payloads back.
 *
 * Storage form. A sealed payload is stored in the payload slot itself, in place of the JSON text, as
 * `enc:v1:` followed by base64(iv | tag | ciphertext): a random 12-byte IV, the 16-byte GCM tag, then the
 * ciphertext of the JSON text's UTF-8 bytes. Every payload the broker stores is JSON text produced by
 * `JSON.stringify`, and a JSON text can only begin with whitespace, `{`, `[`, `"`, `-`, a digit, `t`, `f` or
 * `n`: the prefix can therefore never collide with a plaintext payload, and it is the message's own
 * encrypted flag (docs/decisions.md, "Encryption at rest"). A reader recognises a sealed payload by its first
 * character, so the unencrypted paths pay one character comparison per message and nothing else.
 *
 * The GCM tag authenticates the ciphertext: a wrong key or a modified row fails to open (PayloadDecryptError)
 * instead of yielding garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The prefix that marks a stored payload as sealed (never the start of a JSON text). */
export const SEALED_PREFIX = 'enc:v1:';
const SEALED_FIRST_CHAR = SEALED_PREFIX.charCodeAt(0);
const ALGORITHM = 'aes-256-gcm';
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** True when a stored payload is sealed (encrypted) rather than plain JSON text. */
export function isSealed(stored: string): boolean {
  return stored.charCodeAt(0) === SEALED_FIRST_CHAR && stored.startsWith(SEALED_PREFIX);
}

/** A sealed payload could not be opened: no key, a different key, or a modified ciphertext. */
export class PayloadDecryptError extends Error {
  constructor(reason: string) {
    super(`cannot decrypt payload: ${reason}`);
    this.name = 'PayloadDecryptError';
  }
}

/** AES-256-GCM sealing and opening of payload texts with one key. */
export class PayloadCipher {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new Error(`an AES-256 key has ${KEY_BYTES} bytes (got ${key.length})`);
    this.key = Buffer.from(key);
  }

  /** Seals a payload's JSON text into its stored form. */
  seal(json: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    const body = Buffer.concat([cipher.update(json, 'utf8'), cipher.final()]);
    return SEALED_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  /** Opens a sealed payload back into its JSON text; throws PayloadDecryptError when it cannot. */
  open(sealed: string): string {
    if (!isSealed(sealed)) throw new PayloadDecryptError('not a sealed payload');
    const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) throw new PayloadDecryptError('malformed ciphertext');
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, raw.subarray(0, IV_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new PayloadDecryptError('wrong key or modified ciphertext');
    }
  }
}

/**
 * Reads stored payloads back for the routes: plaintext passes through, sealed payloads are opened with the
 * broker's key (a broker without a key cannot open any).
 */
export class PayloadReader {
  constructor(private readonly cipher: PayloadCipher | null) {}

  /** The JSON text of a stored payload; throws PayloadDecryptError when a sealed one cannot be opened. */
  text(stored: string): string {
    if (!isSealed(stored)) return stored;
    if (this.cipher === null) throw new PayloadDecryptError('QUEEN_ENCRYPTION_KEY is not set');
    return this.cipher.open(stored);
  }

  /** The payload value for administrative reads: the parsed JSON, or null when it cannot be decrypted. */
  value(stored: string): unknown {
    try {
      return JSON.parse(this.text(stored)) as unknown;
    } catch (error) {
      if (error instanceof PayloadDecryptError) return null;
      throw error;
    }
  }

  /**
   * Opens, in place, every sealed payload of a batch about to be delivered; throws PayloadDecryptError at
   * the first one that cannot be opened. A batch without sealed payloads is left untouched.
   */
  openAll(messages: Array<{ payload: string }>): void {
    for (const message of messages) {
      if (message.payload.charCodeAt(0) === SEALED_FIRST_CHAR) message.payload = this.text(message.payload);
    }
  }
}
