// The provider's published OpenAPI document the Buyer Intelligence sandbox is checked against.
import type { ConformanceReference } from '../descriptor.ts';
import { BUYER_INTEL_RULES } from './conformance-rules.ts';

export const BUYER_INTEL_REFERENCE: ConformanceReference = {
  api: 'buyer-intel',
  documents: ['buyer-intelligence-openapi.json'],
  rules: BUYER_INTEL_RULES,
};
