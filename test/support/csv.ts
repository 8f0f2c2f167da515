/**
 * A small RFC 4180 reader for the tests (written apart from the service's writer, so a writer bug
 * cannot hide in a shared parser): records separated by CRLF, fields by commas, a quoted field may
 * hold commas, line breaks and doubled quotes.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (ch === '"') {
        quoted = false;
        i++;
      } else {
        field += ch;
        i++;
      }
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
      i++;
    } else if (ch === ',') {
      record.push(field);
      field = '';
      i++;
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 2;
    } else {
      if (ch === '\n' || ch === '\r' || ch === '"') throw new Error(`bare ${JSON.stringify(ch)} at ${i} outside quotes`);
      field += ch;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || record.length) throw new Error('the last record is not ended by CRLF');
  return records;
}

/** The records of a CSV with a header line, as objects keyed by the header. */
export function csvObjects(text: string): { header: string[]; rows: Array<Record<string, string>> } {
  const [header, ...lines] = parseCsv(text);
  for (const line of lines) if (line.length !== header.length) throw new Error(`a line has ${line.length} cells, the header ${header.length}`);
  return { header, rows: lines.map((line) => Object.fromEntries(header.map((h, i) => [h, line[i]]))) };
}
