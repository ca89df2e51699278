// The inbound security settings (issue #16): who may read /metrics and the API's description, and how
// often inbound events may enrich one account. Their own block of the core's schema.
import { z } from 'zod';
import { int } from '../shared/config-schema.ts';

const hostPort = z
  .string()
  .trim()
  .regex(/^(?:\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9464')
  .transform((v) => {
    const at = v.lastIndexOf(':');
    return { host: v.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(v.slice(at + 1)) };
  })
  .refine((v) => v.port <= 65_535, 'the port must be at most 65535')
  .optional();

const flag = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .optional()
  .transform((v) => v === 'true' || v === '1');

export const securityVariables = {
  /** Bearer token for /metrics; unset: /metrics is served only on METRICS_LISTEN (or not at all). */
  METRICS_TOKEN: z.string().trim().min(24, 'must be at least 24 characters').optional(),
  /** Serve /metrics on its own host:port (a private interface) instead of the public one. */
  METRICS_LISTEN: hostPort,
  /** Serve /api/openapi.json and /api/docs without the API key. Default false. */
  API_DOCS_PUBLIC: flag,
  /** Inbound events (webhooks, Outbound Messages) enrich one account at most once per this window. */
  INBOUND_ACCOUNT_WINDOW_SECONDS: int(0, 86_400, 600),
};

export interface SecuritySettings {
  metrics: { token?: string | undefined; listen?: { host: string; port: number } | undefined };
  apiDocsPublic: boolean;
  inboundAccountWindowMs: number;
}

export function securitySettings(env: {
  METRICS_TOKEN?: string | undefined;
  METRICS_LISTEN?: { host: string; port: number } | undefined;
  API_DOCS_PUBLIC: boolean;
  INBOUND_ACCOUNT_WINDOW_SECONDS: number;
}): SecuritySettings {
  return {
    metrics: { token: env.METRICS_TOKEN, listen: env.METRICS_LISTEN },
    apiDocsPublic: env.API_DOCS_PUBLIC,
    inboundAccountWindowMs: env.INBOUND_ACCOUNT_WINDOW_SECONDS * 1000,
  };
}
