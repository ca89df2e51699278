// The control routes every emulator serves under /__sandbox (not part of any real API): call counts
// and fault knobs, so a benchmark or test in another process can read and steer the emulator.
import type express from 'express';
import {
  type CallStats,
  type FaultPlan,
  type FaultSettings,
  NO_FAULTS,
  type ScriptedFault,
} from './faults.ts';

export function mountStatsAndFaults(
  control: express.Router,
  parts: { faults: FaultPlan; stats: CallStats },
): void {
  control.get('/stats', (_req, res) => {
    res.json({ total: parts.stats.count(), byOperation: parts.stats });
  });
  control.delete('/stats', (_req, res) => {
    parts.stats.reset();
    res.status(204).end();
  });
  control.put('/faults', (req, res) => {
    const body = (req.body ?? {}) as Partial<FaultSettings> & { inject?: ScriptedFault[] };
    const current = parts.faults.settings;
    parts.faults.settings = {
      latencyMs: Number(body.latencyMs ?? current.latencyMs),
      errorRate: Number(body.errorRate ?? current.errorRate),
      rateLimitRate: Number(body.rateLimitRate ?? current.rateLimitRate),
    };
    for (const f of body.inject ?? []) parts.faults.inject(f);
    res.json(parts.faults.settings);
  });
  control.delete('/faults', (_req, res) => {
    parts.faults.clear();
    parts.faults.settings = { ...NO_FAULTS };
    res.status(204).end();
  });
}
