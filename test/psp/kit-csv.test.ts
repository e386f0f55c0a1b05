import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/psp/kit/csv.ts';

describe('parseCsv (RFC 4180, for PSP reports)', () => {
  it('reads quoted fields holding commas, doubled quotes and line breaks, CRLF or LF records, empty fields', () => {
    expect(parseCsv('a,"b, c","say ""hi"""\r\n"line\r\nbreak",,x\n1,2,3')).toEqual([
      ['a', 'b, c', 'say "hi"'],
      ['line\r\nbreak', '', 'x'],
      ['1', '2', '3'],
    ]);
  });

  it('drops a byte order mark and the line break that ends the last record, keeps an empty last field', () => {
    expect(parseCsv('\uFEFFh1,h2\r\nv1,\r\n')).toEqual([
      ['h1', 'h2'],
      ['v1', ''],
    ]);
    expect(parseCsv('"",x')).toEqual([['', 'x']]);
  });

  it('refuses what is not CSV: a quote inside an unquoted field, text after a closing quote, an unclosed quote', () => {
    expect(parseCsv('ab"c,d')).toBeUndefined();
    expect(parseCsv('"ab"c,d')).toBeUndefined();
    expect(parseCsv('"abc,d')).toBeUndefined();
    expect(parseCsv('{"resultCode": "Authorised"')).toBeUndefined();
  });
});
