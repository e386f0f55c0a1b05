import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../src/domain/dates.ts';
import { DEFAULT_TIME_ZONE, formatDateTime, timeZoneOf, utcOffset, zonedDay, zonedMidnight } from '../../src/i18n/format.ts';
import { LANGS, type Lang } from '../../src/i18n/lang.ts';

/** Every zone this Node knows, and UTC (which `supportedValuesOf` leaves out). */
const ZONES = ['UTC', ...Intl.supportedValuesOf('timeZone')];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** `23 November 2026, 14:00 (UTC+1)`, `… (UTC-0:44:30)`, `… (UTC)`. */
const EN = /^(\d{1,2}) ([A-Z][a-z]+) (\d{4}), (\d{2}):(\d{2}) \((UTC(?:([+-])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?)?)\)$/;

/** The offset in seconds that a stated `UTC±h[:mm[:ss]]` says. */
function statedSeconds(m: RegExpExecArray): number {
  if (!m[7]) return 0;
  return (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 3600 + Number(m[9] ?? 0) * 60 + Number(m[10] ?? 0));
}

/** What Intl itself says the offset is (`GMT+05:30`, `GMT`), in seconds: an oracle independent of ours. */
function intlSeconds(date: Date, timeZone: string): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(date).find((p) => p.type === 'timeZoneName')!.value;
  const m = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(name);
  if (!m) throw new Error(`unexpected offset name ${name}`);
  return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4] ?? 0)) : 0;
}

const instants = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true });

describe('date-times state their zone', () => {
  it('states the offset the shown wall clock has from the instant, for random instants in every zone (fast-check)', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...ZONES), (date, zone) => {
        const text = formatDateTime(date, 'en', zone);
        const m = EN.exec(text);
        expect(m, text).not.toBeNull();
        const offset = statedSeconds(m!);
        // The wall clock shown, minus the offset stated, is the instant (to the minute shown).
        const wall = Date.UTC(Number(m![3]), MONTHS.indexOf(m![2]!), Number(m![1]), Number(m![4]), Number(m![5]));
        const shown = wall - offset * 1000;
        expect(date.getTime() - shown, `${date.toISOString()} in ${zone}: ${text}`).toBeGreaterThanOrEqual(0);
        expect(date.getTime() - shown, `${date.toISOString()} in ${zone}: ${text}`).toBeLessThan(60_000);
        // And it is the offset Intl knows for that zone at that instant.
        expect(offset, `${date.toISOString()} in ${zone}: ${text}`).toBe(intlSeconds(date, zone));
        // French states the same time and zone.
        expect(formatDateTime(date, 'fr', zone).endsWith(`${m![4]}:${m![5]} (${m![6]})`)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes the offset short: whole hours alone, minutes when there are, nothing for UTC, and follows daylight saving time', () => {
    const winter = new Date('2026-01-15T12:00:00Z');
    const summer = new Date('2026-07-15T12:00:00Z');
    expect([utcOffset(winter, 'Europe/Paris'), utcOffset(summer, 'Europe/Paris')]).toEqual(['UTC+1', 'UTC+2']);
    expect([utcOffset(winter, 'America/New_York'), utcOffset(summer, 'America/New_York')]).toEqual(['UTC-5', 'UTC-4']);
    expect(utcOffset(winter, 'Asia/Kolkata')).toBe('UTC+5:30');
    expect(utcOffset(winter, 'Asia/Kathmandu')).toBe('UTC+5:45');
    expect(utcOffset(winter, 'UTC')).toBe('UTC');
    expect(utcOffset(winter, 'Europe/London')).toBe('UTC');
    expect(formatDateTime(summer, 'en', 'Europe/London')).toBe('15 July 2026, 13:00 (UTC+1)');
    expect(formatDateTime(winter, 'fr', 'Asia/Kolkata').replace(/\s/g, ' ')).toBe('15 janvier 2026 à 17:30 (UTC+5:30)');
  });

  it('writes the date and joins the time as each of the six languages does', () => {
    const at = new Date('2026-08-01T07:05:00Z');
    const shown = (lang: Lang) => formatDateTime(at, lang, 'Europe/Paris').replace(/\s/g, ' ');
    expect(LANGS.map(shown)).toEqual([
      '1. August 2026 um 09:05 (UTC+2)',
      '1 August 2026, 09:05 (UTC+2)',
      '1 de agosto de 2026, 09:05 (UTC+2)',
      '1er août 2026 à 09:05 (UTC+2)',
      '1 agosto 2026, ore 09:05 (UTC+2)',
      '1 augustus 2026 om 09:05 (UTC+2)',
    ]);
  });

  it('is ASCII after the time, so an SMS keeps its 7-bit alphabet', () => {
    expect(formatDateTime(new Date('2026-01-15T12:00:00Z'), 'en', 'America/Sao_Paulo')).toMatch(/ \(UTC-3\)$/);
  });
});

describe('time zone names', () => {
  it('takes IANA names as typed, in their usual capitals, and the default is Paris', () => {
    expect(DEFAULT_TIME_ZONE).toBe('Europe/Paris');
    for (const z of ['Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Europe/Kyiv', 'UTC', 'Etc/GMT+5']) expect(timeZoneOf(z)).toBe(z);
    expect(timeZoneOf('  Europe/Paris ')).toBe('Europe/Paris');
  });

  it("stores Intl's own spelling for a name typed in other capitals", () => {
    expect(timeZoneOf('europe/paris')).toBe('Europe/Paris');
    expect(timeZoneOf('utc')).toBe('UTC');
  });

  it('refuses what is not a zone Intl knows, and fixed offsets', () => {
    for (const z of ['', ' ', 'Mars/Olympus_Mons', 'Paris', '+01:00', 'UTC+1', 'Europe/Paris; DROP TABLE', '../etc/passwd', 'x'.repeat(65)])
      expect(timeZoneOf(z), z).toBeUndefined();
  });
});

describe("a zone's calendar days (the back office's day counts)", () => {
  it("every instant falls inside the zone day it is on: from that day's first instant to the next day's, in every zone (fast-check)", () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...ZONES), (t, zone) => {
        const day = zonedDay(t, zone);
        const start = zonedMidnight(day, zone);
        const next = zonedMidnight(addDays(day, 1), zone);
        expect(start.getTime()).toBeLessThanOrEqual(t.getTime());
        expect(t.getTime()).toBeLessThan(next.getTime());
        expect(zonedDay(start, zone)).toBe(day);
        // The instant just before a day begins is still on the day before.
        expect(zonedDay(new Date(start.getTime() - 1), zone)).toBe(addDays(day, -1));
      }),
      { numRuns: 2_000 },
    );
  });

  it('begins a day at midnight, at the jump where daylight saving time skips midnight, or at the first of two midnights', () => {
    expect(zonedMidnight('2026-11-24', 'Europe/Paris').toISOString()).toBe('2026-11-23T23:00:00.000Z');
    expect(zonedMidnight('2026-07-01', 'Europe/Paris').toISOString()).toBe('2026-06-30T22:00:00.000Z');
    expect(zonedMidnight('2026-11-24', 'Pacific/Kiritimati').toISOString()).toBe('2026-11-23T10:00:00.000Z');
    expect(zonedMidnight('2026-11-24', 'Asia/Kolkata').toISOString()).toBe('2026-11-23T18:30:00.000Z');
    // Chile moved its clocks from 00:00 to 01:00 on 2022-09-11: that day began at 01:00 (UTC-3), 04:00 UTC.
    expect(zonedMidnight('2022-09-11', 'America/Santiago').toISOString()).toBe('2022-09-11T04:00:00.000Z');
    // Lisbon went back from 01:00 (UTC+1) to 00:00 (UTC) on 1985-09-29: midnight came twice, the day
    // began at the first, 23:00 UTC the day before (found by the property above).
    expect(zonedMidnight('1985-09-29', 'Europe/Lisbon').toISOString()).toBe('1985-09-28T23:00:00.000Z');
    expect(zonedDay(new Date('2026-11-23T10:00:00Z'), 'Pacific/Kiritimati')).toBe('2026-11-24');
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2026-01-01', -1)).toBe('2025-12-31');
  });
});
