import { acceptedLanguages, chooseLanguage } from './locale';

describe('checkout language', () => {
  it.each([
    [undefined, undefined, 'en'],
    ['de', undefined, 'de'],
    ['DE-at', 'en', 'de'],
    ['fr', 'de-CH,de;q=0.9', 'de'],
    [undefined, 'fr-FR,fr;q=0.9,de;q=0.8,en;q=0.7', 'de'],
    [undefined, 'en;q=0.5,de;q=0.8', 'de'],
    [undefined, 'de;q=0,en', 'en'],
    [undefined, 'fr,es', 'en'],
    [undefined, 'garbage;;;q=x', 'en'],
    [['de'], 'en', 'en'],
  ])('lang=%p Accept-Language=%p -> %p', (query, header, expected) => {
    expect(chooseLanguage(query, header)).toBe(expected);
  });

  it('keeps the header order among equal qualities', () => {
    expect(acceptedLanguages('de, en')).toEqual(['de', 'en']);
    expect(acceptedLanguages('en, de')).toEqual(['en', 'de']);
  });
});
