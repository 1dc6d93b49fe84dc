// @ts-check
/**
 * The linter: typescript-eslint's type-aware rules for the mistakes that bite this code — a
 * promise nobody awaits or catches, a promise where a callback's result is ignored, `any`
 * leaking into typed code — on top of ESLint's recommended rules. `npm run lint`; CI runs it
 * before the tests. Formatting is Prettier's (`npm run format`), not the linter's.
 */
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", ".skillmesh/", ".wrangler/", "dist/", "worker-configuration.d.ts", "routes/ui-assets/*.js", "**/*.d.ts", "scripts/.tmp-*"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unsafe-argument": "error",
      "@typescript-eslint/no-unsafe-assignment": "error",
      "@typescript-eslint/no-unsafe-return": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
    },
  },
  {
    // One pipe (src/policies/content): only the content path makes a `Cleared` piece; a cast elsewhere would be a side door.
    files: ["src/**/*.ts", "routes/**/*.ts"],
    ignores: ["src/policies/content/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "TSAsExpression > TSTypeReference[typeName.name='Cleared'], TSTypeAssertion > TSTypeReference[typeName.name='Cleared']",
          message: "Only the content path (src/policies/content) makes Cleared content: pass the piece through it instead.",
        },
      ],
    },
  },
  {
    // Plain Node scripts that run before anything is installed or built (npm's install and test hooks).
    files: ["scripts/setup/*.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
  },
  {
    // Tests read JSON answers whose shape the assertions check: `any` is how they read them.
    files: ["test/**", "**/*.test.ts", "scripts/bench/**"],
    rules: {
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/no-explicit-any": "off",
    },
  },
  {
    // Miniflare's declarations import types it does not ship: its options are `any` to the checker
    // (tsc too, under skipLibCheck), so the file that builds them cannot be told otherwise.
    files: ["scripts/mesh/index.ts"],
    rules: { "@typescript-eslint/no-unsafe-assignment": "off", "@typescript-eslint/no-unsafe-return": "off" },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Tool configuration in CommonJS (dependency-cruiser reads it so).
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: { module: "writable", require: "readonly", __dirname: "readonly" } },
  },
);
