/**
 * Which language the checkout page speaks: `?lang=` when it names a supported language, else the
 * best match of the browser's Accept-Language (RFC 9110 quality values), else English. Pure.
 */
export const CHECKOUT_LANGUAGES = ['en', 'de'] as const;
export type CheckoutLanguage = (typeof CHECKOUT_LANGUAGES)[number];
export const DEFAULT_LANGUAGE: CheckoutLanguage = 'en';

function supported(tag: string): CheckoutLanguage | null {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return (CHECKOUT_LANGUAGES as readonly string[]).includes(primary) ? (primary as CheckoutLanguage) : null;
}

/** The supported languages of an Accept-Language header, best first (q=0 means "not this one"). */
export function acceptedLanguages(header: string | undefined): CheckoutLanguage[] {
  if (!header) return [];
  const ranked = header
    .split(',')
    .slice(0, 30)
    .map((part, index) => {
      const [tag, ...params] = part.split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const quality = q ? Number.parseFloat(q.slice(2)) : 1;
      return { lang: supported(tag), quality: Number.isFinite(quality) ? quality : 0, index };
    });
  return ranked
    .filter((r): r is { lang: CheckoutLanguage; quality: number; index: number } => r.lang !== null && r.quality > 0)
    .sort((a, b) => b.quality - a.quality || a.index - b.index)
    .map((r) => r.lang);
}

export function chooseLanguage(query: unknown, acceptLanguage: string | undefined): CheckoutLanguage {
  if (typeof query === 'string') {
    const asked = supported(query);
    if (asked) return asked;
  }
  return acceptedLanguages(acceptLanguage)[0] ?? DEFAULT_LANGUAGE;
}
