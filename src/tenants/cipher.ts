// Tokens at rest: AES-256-GCM with a random 96-bit IV per value and the record's name as associated
// data, so a ciphertext moved to another tenant's slot fails to decrypt. The key comes from the
// environment (TOKEN_ENCRYPTION_KEY, 32 bytes, base64); Redis never sees it.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class TokenCipher {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the token encryption key must be 32 bytes');
    this.#key = key;
  }

  static fromBase64(text: string): TokenCipher {
    return new TokenCipher(Buffer.from(text, 'base64'));
  }

  encrypt(plaintext: string, context: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [
      VERSION,
      iv.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      body.toString('base64'),
    ].join('.');
  }

  /** Throws when the value was tampered with, encrypted under another key or for another context. */
  decrypt(value: string, context: string): string {
    const [version, iv, tag, body] = value.split('.');
    if (version !== VERSION || !iv || !tag || body === undefined)
      throw new Error('not an encrypted token value');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new Error(
        `cannot decrypt the stored value for ${context}: wrong TOKEN_ENCRYPTION_KEY or tampered data`,
      );
    }
  }

  /** A codec for one Redis key's values (token-refresh.ts stores through it). */
  codec(context: string): { encode(s: string): string; decode(s: string): string } {
    return { encode: (s) => this.encrypt(s, context), decode: (s) => this.decrypt(s, context) };
  }
}
