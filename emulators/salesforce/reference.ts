// The document the Salesforce emulator's answers are checked against (conformance mode): a
// transcription of Salesforce's REST shapes under test/fixtures/reference/ (its sources in SOURCES.md).
import type { ConformanceReference } from '../descriptor.ts';
import { SALESFORCE_RULES } from './conformance-rules.ts';

export const SALESFORCE_REFERENCE: ConformanceReference = {
  api: 'salesforce',
  documents: ['salesforce/rest-shapes.json'],
  rules: SALESFORCE_RULES,
};
