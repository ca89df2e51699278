// The accounts of a chunk's group reach their CRM calls together: a call waits until every account of
// the group still running is at the gate (or finished), then all leave in the same tick; a straggler
// holds the others no longer than the group's wait.
import { describe, expect, it } from 'vitest';
import { Departures, Lockstep } from '../../src/batch/lockstep.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('lockstep', () => {
  it('holds each call until the whole group waits, then releases them all at once', async () => {
    const group = new Lockstep(['a', 'b', 'c'], 60_000);
    const sent: string[] = [];
    const call = (id: string) => group.gate(id, async () => sent.push(id));
    const a = call('a');
    const b = call('b');
    await tick();
    expect(sent).toEqual([]);
    const c = call('c');
    await Promise.all([a, b, c]);
    expect(sent.sort()).toEqual(['a', 'b', 'c']);
  });

  it('stops waiting for an account that finished, and takes an account’s several calls together', async () => {
    const group = new Lockstep(['a', 'b'], 60_000);
    const sent: string[] = [];
    const notes = [
      group.gate('a', async () => sent.push('a1')),
      group.gate('a', async () => sent.push('a2')),
    ];
    await tick();
    expect(sent).toEqual([]);
    group.leave('b');
    await Promise.all(notes);
    expect(sent).toEqual(['a1', 'a2']);
    // An account not of the group is never held.
    expect(await group.gate('z', async () => 'now')).toBe('now');
  });

  it('lets the accounts at the gate go once the wait is over, the straggler with the next round', async () => {
    const group = new Lockstep(['a', 'b', 'c'], 0);
    const sent: string[] = [];
    await Promise.all([
      group.gate('a', async () => sent.push('a')),
      group.gate('b', async () => sent.push('b')),
    ]);
    expect(sent).toEqual(['a', 'b']);
    await group.gate('c', async () => sent.push('c'));
    expect(sent).toEqual(['a', 'b', 'c']);
  });

  it('when the whole group waits, lets the earliest step go first so the later one leaves as one round', async () => {
    const group = new Lockstep(['a', 'b', 'c'], 60_000);
    const rounds: string[][] = [];
    let round: string[] = [];
    const at = (id: string, step: number) =>
      group.gate(
        id,
        async () => {
          round.push(`${id}${step}`);
          queueMicrotask(() => {
            if (round.length) rounds.push(round.sort());
            round = [];
          });
        },
        step,
      );
    // a is at the write (2); b and c are still at the note check (1) and write right after.
    const a = at('a', 2);
    const bc = ['b', 'c'].map(async (id) => {
      await at(id, 1);
      await at(id, 2);
    });
    await Promise.all([a, ...bc]);
    expect(rounds).toEqual([
      ['b1', 'c1'],
      ['a2', 'b2', 'c2'],
    ]);
  });

  it('holds the accounts coming out of the paced work until the rest of the group comes, however slowly', async () => {
    // A group that read together (step 0) and then met the provider's pace: each account comes to
    // its write (step 2) alone, a second after the one before; they leave as one round, not each alone.
    let clock = 0;
    const group = new Lockstep(['a', 'b', 'c'], {
      maxWaitMs: 0,
      gatherMs: 60_000,
      pacedAfter: 0,
      now: () => clock,
    });
    const sent: string[] = [];
    await Promise.all(['a', 'b', 'c'].map((id) => group.gate(id, async () => sent.push(`${id}0`), 0)));
    const write = (id: string) => {
      clock += 1_000;
      return group.gate(id, async () => sent.push(`${id}2`), 2);
    };
    const a = write('a');
    await tick();
    const b = write('b');
    await tick();
    expect(sent).toEqual(['a0', 'b0', 'c0']);
    await Promise.all([a, b, write('c')]);
    expect(sent.slice(3).sort()).toEqual(['a2', 'b2', 'c2']);
  });

  it('lets the accounts of a quick call go on together, never waiting for one still in the paced work', async () => {
    const group = new Lockstep(['a', 'b', 'c'], { maxWaitMs: 60_000, gatherMs: 0, pacedAfter: 0 });
    const sent: string[] = [];
    await Promise.all(['a', 'b', 'c'].map((id) => group.gate(id, async () => sent.push(`${id}0`), 0)));
    // a and b come out of the paced work and write together; c is still in it.
    await Promise.all(['a', 'b'].map((id) => group.gate(id, async () => sent.push(`${id}2`), 2)));
    // Their writes answer one after the other: a's record waits for b's, not for c.
    const a = group.gate('a', async () => sent.push('a3'), 3);
    await tick();
    expect(sent).not.toContain('a3');
    await Promise.all([a, group.gate('b', async () => sent.push('b3'), 3)]);
    expect(sent.slice(5).sort()).toEqual(['a3', 'b3']);
  });

  it("takes the other groups' paced accounts along when one group's round leaves", async () => {
    // Two chunks side by side: the first group's round leaves when its wait is over (none here), the
    // second's waiting account goes in the same tick although its own wait (a minute) is not over.
    let clock = 0;
    const departures = new Departures();
    const options = { maxWaitMs: 0, pacedAfter: 0, departures, now: () => clock };
    const first = new Lockstep(['a', 'b'], { ...options, gatherMs: 0 });
    const second = new Lockstep(['x', 'y'], { ...options, gatherMs: 60_000 });
    const sent: string[] = [];
    await Promise.all([
      ...['a', 'b'].map((id) => first.gate(id, async () => sent.push(`${id}0`), 0)),
      ...['x', 'y'].map((id) => second.gate(id, async () => sent.push(`${id}0`), 0)),
    ]);
    clock += 1_000; // out of the paced work a second later: y is expected seconds from now
    const x = second.gate('x', async () => sent.push('x2'), 2);
    await tick();
    expect(sent).not.toContain('x2');
    await Promise.all([first.gate('a', async () => sent.push('a2'), 2), x]);
    expect(sent.slice(4).sort()).toEqual(['a2', 'x2']);
  });
});
