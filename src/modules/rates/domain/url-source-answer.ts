import { CURRENCIES, type Currency } from '../../../shared/money/currency';
import { parseTimeBound } from '../../../shared/time/time';
import { isObject, JsonNumber, notAfter, positivePrice, quote, readJson, SourceAnswer, SourceAnswerError } from './source-answer';

/**
 * Reads the answer of a URL source, the shape `rates:import` takes: `{"rates": {"BITCOIN":
 * "95000.12", "EUR": "1.16", ...}, "taken_at"?: "2026-11-27 10:00:00" | ISO 8601 | Unix seconds}`,
 * each rate the USD value of one unit (decimal text, or a JSON number read from its text). Without
 * `taken_at` the time the answer arrived counts; a `taken_at` later than that counts as that.
 * Names that are not our currencies are ignored, and USD is always 1.
 */
export function parseUrlSourceAnswer(body: string, fetchedAt: Date): SourceAnswer {
  const doc = readJson(body);
  if (!isObject(doc) || !isObject(doc.rates)) throw new SourceAnswerError('no rates object');
  let takenAt = fetchedAt;
  if (doc.taken_at !== undefined && doc.taken_at !== null) {
    const given =
      typeof doc.taken_at === 'string'
        ? parseTimeBound(doc.taken_at, 'from')
        : doc.taken_at instanceof JsonNumber && /^\d{1,12}$/.test(doc.taken_at.text)
          ? new Date(Number(doc.taken_at.text) * 1000)
          : null;
    if (!given) throw new SourceAnswerError('taken_at is not a time');
    takenAt = notAfter(given, fetchedAt);
  }
  const rates = doc.rates;
  const out: SourceAnswer = {};
  for (const currency of CURRENCIES as readonly Currency[]) {
    if (currency === 'USD' || rates[currency] === undefined) continue;
    out[currency] = quote(positivePrice(rates[currency]), takenAt);
  }
  return out;
}
