// @ts-check
// ESLint as a new Nest project sets it up (flat config, typescript-eslint with type information,
// Prettier through eslint-plugin-prettier), plus the few changes this codebase's own patterns need.
import eslint from '@eslint/js';
import eslintPluginPrettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'eslint.config.mjs',
      'dist/**',
      'coverage/**',
      'bench/results/**',
      'test/fixtures/**',
      // The client package's build, and its types generated from openapi.json (npm run openapi).
      'clients/typescript/dist/**',
      'clients/typescript/src/schema.ts',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  eslintPluginPrettierRecommended,
  {
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      sourceType: 'commonjs',
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      // The Nest defaults.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-floating-promises': 'warn',
      '@typescript-eslint/no-unsafe-argument': 'warn',
      'prettier/prettier': ['error', { endOfLine: 'auto' }],
      // Turned off because they fight deliberate patterns of this codebase (one reason each):
      // raw SQL rows from TypeORM's query(), class-transformer Transform values and HTTP bodies in tests are `any` by design and typed where they are read.
      '@typescript-eslint/no-unsafe-assignment': 'off',
      // Same boundary: a row or a transformed value is returned as the declared type of the function that reads it.
      '@typescript-eslint/no-unsafe-return': 'off',
      // Same boundary: SQL rows and response bodies are read field by field (`rows[0].total`, `res.body.data`).
      '@typescript-eslint/no-unsafe-member-access': 'off',
      // Tests call methods on parsed bodies (`data.items.map`) on purpose; the source has no such call.
      '@typescript-eslint/no-unsafe-call': 'off',
      // Unused arguments keep a handler's or an interface's full signature; a leading underscore marks them.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // The checkout page's own script runs in the payer's browser as an ES module, outside the TypeScript project.
    files: ['src/modules/checkout/static/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { globals: { ...globals.browser }, sourceType: 'module', parserOptions: { projectService: false } },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Fakes and stand-ins implement async interfaces without awaiting anything.
      '@typescript-eslint/require-await': 'off',
      // Test and bench messages interpolate untyped values from bodies and rows.
      '@typescript-eslint/restrict-template-expressions': 'off',
      '@typescript-eslint/restrict-plus-operands': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  // Last, so that no rule set above turns type-aware rules back on for them.
  {
    // Plain JavaScript (build scripts, a page's browser script) is outside the TypeScript project: no type-aware rules.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // CommonJS files (the build script, Jest and dependency-cruiser configs): require() is their module system.
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The merchant example runs as ES modules under plain node (examples/README.md).
    files: ['examples/**/*.mjs'],
    languageOptions: { sourceType: 'module' },
  },
  {
    files: ['src/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
