import { settingErrorLines, shownSetting } from './setting-errors';

describe('shownSetting', () => {
  it('never shows a secret by its name, only its length', () => {
    expect(shownSetting('ADMIN_API_TOKEN', 'abc123')).toBe('<6 characters, not shown>');
    expect(shownSetting('SECRETS_KEY', 'k'.repeat(10))).toBe('<10 characters, not shown>');
    expect(shownSetting('SECRETS_KEYS_OLD', 'x')).toBe('<1 characters, not shown>');
  });

  it('shows a URL without its password and query, anything else as given', () => {
    expect(shownSetting('DATABASE_REPLICA_URLS', 'postgres://app:hunter2@db1/x;postgres://app:pw@db2/x')).toBe(
      '"postgres://app:<not shown>@db1/x;postgres://app:<not shown>@db2/x"',
    );
    expect(shownSetting('RATE_SOURCES', 'coinbase,https://feed.example/rates?api_key=s3cret')).toBe('"coinbase,https://feed.example/rates?<not shown>"');
    expect(shownSetting('DATABASE_URL', 'host=db user=app password=S3cret dbname=app')).toBe('"host=db user=app password=<not shown> dbname=app"');
    expect(shownSetting('DATABASE_URL', "host=db password = 'two words' dbname=app")).toBe('"host=db password = <not shown> dbname=app"');
    expect(shownSetting('DATABASE_URL', "host=db password='ab\\'cd ef' dbname=app")).toBe('"host=db password=<not shown> dbname=app"');
    expect(shownSetting('PORT', 'abc')).toBe('"abc"');
    expect(shownSetting('DB_POOL_SIZE', 0)).toBe('0');
  });
});

describe('settingErrorLines', () => {
  it('names the setting, shows its value as shownSetting does, and says what is wrong', () => {
    expect(
      settingErrorLines([{ property: 'METRICS_TOKEN', value: 'short', constraints: { minLength: 'must be at least 16 characters' }, children: [] }]),
    ).toEqual(['  METRICS_TOKEN=<5 characters, not shown>: must be at least 16 characters']);
  });
});
