import { prepared, preparedShape, setPreparedStatements, statementName } from './prepared';

describe('prepared statements', () => {
  afterEach(() => setPreparedStatements(true));

  it('names a declared statement and returns its text unchanged', () => {
    const text = prepared('spec_read', 'SELECT 1 WHERE $1::int = 1');
    expect(text).toBe('SELECT 1 WHERE $1::int = 1');
    expect(statementName(text)).toBe('spec_read');
  });

  it('refuses one name for two statements, and two names for one statement', () => {
    prepared('spec_once', 'SELECT 2');
    expect(() => prepared('spec_once', 'SELECT 3')).toThrow(/two statements are prepared as spec_once/);
    expect(() => prepared('spec_other', 'SELECT 2')).toThrow(/already prepared as spec_once/);
    expect(prepared('spec_once', 'SELECT 2')).toBe('SELECT 2');
  });

  it('names an assembled statement after its text: the same shape, the same name', () => {
    const a = preparedShape('list', 'SELECT id FROM t WHERE organization_id = $1 AND status = ANY($3)');
    const b = preparedShape('list', 'SELECT id FROM t WHERE organization_id = $1 AND currency = ANY($3)');
    expect(statementName(a)).toMatch(/^list_[0-9a-f]{16}$/);
    expect(statementName(b)).toMatch(/^list_[0-9a-f]{16}$/);
    expect(statementName(a)).not.toBe(statementName(b));
    expect(statementName(preparedShape('list', a))).toBe(statementName(a));
  });

  it('leaves undeclared statements unnamed, and every statement when turned off', () => {
    expect(statementName('SELECT now()')).toBeUndefined();
    const text = prepared('spec_off', 'SELECT 4');
    setPreparedStatements(false);
    expect(statementName(text)).toBeUndefined();
  });
});
