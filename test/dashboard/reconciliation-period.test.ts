import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { periodText } from '../../src/http/backoffice/pages/reconciliation-page.ts';
import { zonedMidnight } from '../../src/i18n/format.ts';

/** How the Reconciliation page names a run's period (docs/back-office.md#reconciliation): as the days staff asked for. */
describe("a reconciliation run's period", () => {
  const paris = 'Europe/Paris';
  const day = (iso: string) => zonedMidnight(iso, paris);

  it('is one day when it runs from a midnight of the account to the next, in both languages', () => {
    expect(periodText(day('2026-12-11'), day('2026-12-12'), 'en', paris)).toBe('11 December 2026');
    expect(periodText(day('2026-12-01'), day('2026-12-02'), 'fr', paris)).toBe('1er décembre 2026');
  });

  it('is its first and last days, the last included, across a daylight-saving change', () => {
    expect(periodText(day('2026-10-24'), day('2026-10-27'), 'en', paris)).toBe('24 October 2026 → 26 October 2026');
  });

  it('is two instants when it does not begin and end at midnights of the zone', () => {
    expect(periodText(new Date('2026-12-11T10:00:00Z'), day('2026-12-12'), 'en', paris)).toBe('11 December 2026, 11:00 (UTC+1) → 12 December 2026, 00:00 (UTC+1)');
  });

  it('names every whole-day period by days that begin and end it, in any zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3650 }),
        fc.integer({ min: 1, max: 31 }),
        fc.constantFrom('Europe/Paris', 'America/Sao_Paulo', 'Asia/Kolkata', 'UTC'),
        (start, length, zone) => {
          const first = new Date(Date.UTC(2024, 0, 1 + start)).toISOString().slice(0, 10);
          const next = new Date(Date.UTC(2024, 0, 1 + start + length)).toISOString().slice(0, 10);
          const last = new Date(Date.UTC(2024, 0, start + length)).toISOString().slice(0, 10);
          const text = periodText(zonedMidnight(first, zone), zonedMidnight(next, zone), 'en', zone);
          const name = (iso: string) => new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'long', year: 'numeric' });
          expect(text).toBe(length === 1 ? name(first) : `${name(first)} → ${name(last)}`);
        },
      ),
    );
  });
});
