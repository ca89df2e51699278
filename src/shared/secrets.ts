// The environment's secret values, and text with them blanked out: what doctor prints and what the
// CLI's top level says of a failure that escaped a command (src/cli/command.ts) pass through `redact`,
// a second line of defence behind messages that are written never to hold a secret.
/** Every secret-looking variable's value, and the Redis and database URLs' passwords: never printed. */
export function secretsOf(source: NodeJS.ProcessEnv): string[] {
  const secrets = new Set<string>();
  for (const [key, value] of Object.entries(source)) {
    if (!value) continue;
    if (/TOKEN|SECRET|PASSWORD|API_KEYS/i.test(key)) {
      secrets.add(value.trim());
      for (const part of value.split(',')) secrets.add(part.trim());
    }
    if (key === 'REDIS_URL' || key === 'DATABASE_URL') {
      try {
        const u = new URL(value);
        if (u.password) {
          secrets.add(u.password);
          secrets.add(decodeURIComponent(u.password));
        }
      } catch {}
    }
  }
  // Short values would blank out ordinary words; the shortest real secret here is far longer.
  return [...secrets].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
}

export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}
