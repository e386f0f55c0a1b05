/**
 * A small RFC 4180 reader for the CSV reports PSPs publish (Adyen's payment accounting report):
 * fields separated by commas, records by CRLF or LF, a field in double quotes may hold commas,
 * line breaks and doubled quotes (`""`). No dependency: the project has no CSV library, and a
 * report is at most the 64 MiB its download may weigh (`REPORT_MAX_BYTES`, src/psp/adyen/connector.ts).
 *
 * Answers the records, each an array of fields, or undefined when the text is not CSV: a quote
 * inside an unquoted field, text after a closing quote, a quoted field never closed. A byte
 * order mark at the start is dropped; a trailing line break ends the last record (no empty one).
 */
export function parseCsv(text: string): string[][] | undefined {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  // 'start': nothing of the field read yet; 'plain': an unquoted field; 'quoted': inside quotes;
  // 'closed': after a quoted field's closing quote (only a separator or a line break may follow).
  let state: 'start' | 'plain' | 'quoted' | 'closed' = 'start';
  const endField = () => {
    record.push(field);
    field = '';
    state = 'start';
  };
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length) {
    const c = text[i]!;
    i++;
    if (state === 'quoted') {
      if (c !== '"') field += c;
      else if (text[i] === '"') {
        field += '"';
        i++;
      } else state = 'closed';
      continue;
    }
    if (c === ',') {
      endField();
      continue;
    }
    if (c === '\r' || c === '\n') {
      if (c === '\r' && text[i] === '\n') i++;
      endField();
      records.push(record);
      record = [];
      continue;
    }
    if (state === 'closed') return undefined;
    if (c === '"') {
      if (state !== 'start') return undefined;
      state = 'quoted';
      continue;
    }
    field += c;
    state = 'plain';
  }
  if (state === 'quoted') return undefined;
  // The last record, unless the text ended with its line break.
  if (state !== 'start' || record.length > 0) {
    endField();
    records.push(record);
  }
  return records;
}
