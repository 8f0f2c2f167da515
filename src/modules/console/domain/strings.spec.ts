import { chooseConsoleLanguage, stringsOf } from './strings';

describe('console strings', () => {
  it('has every English key in German, none empty', () => {
    const en = stringsOf('en');
    const de = stringsOf('de');
    expect(Object.keys(de).sort()).toEqual(Object.keys(en).sort());
    for (const value of Object.values(de)) expect(value.length).toBeGreaterThan(0);
  });

  it('chooses ?lang, then Accept-Language by weight, else English', () => {
    expect(chooseConsoleLanguage('de', 'en')).toBe('de');
    expect(chooseConsoleLanguage(undefined, 'fr, de-AT;q=0.8, en;q=0.5')).toBe('de');
    expect(chooseConsoleLanguage('xx', 'fr')).toBe('en');
  });
});
