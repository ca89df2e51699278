// A worker's connection errors are JSON log lines, one per distinct message per interval, with how
// many recurred in between (issue 44: thousands of raw stacks from one worker while a node was down).
import { EventEmitter } from 'node:events';
import { afterEach, expect, it, vi } from 'vitest';
import { logConnectionErrors } from '../../queues/connection-errors.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('logs each distinct error once per interval and counts the repeats', () => {
  vi.useFakeTimers({ now: 0 });
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const worker = new EventEmitter();
  logConnectionErrors(worker, 'enrich', { warn: (msg, fields) => lines.push({ msg, fields }) }, 10_000);
  for (let i = 0; i < 500; i++) worker.emit('error', new Error('None of startup nodes is available'));
  worker.emit('error', new Error('Connection is closed.'));
  vi.setSystemTime(10_001);
  worker.emit('error', new Error('None of startup nodes is available'));
  expect(lines).toEqual([
    {
      msg: 'enrich worker connection error; retrying',
      fields: { worker: 'enrich', reason: 'None of startup nodes is available' },
    },
    {
      msg: 'enrich worker connection error; retrying',
      fields: { worker: 'enrich', reason: 'Connection is closed.' },
    },
    {
      msg: 'enrich worker connection error; retrying',
      fields: { worker: 'enrich', reason: 'None of startup nodes is available', repeated: 499 },
    },
  ]);
});
