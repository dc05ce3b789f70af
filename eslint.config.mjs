// Flat config: the recommended JS and typescript-eslint rules, no formatting rules (tsc and review do that).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "out/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", URL: "readonly", AbortController: "readonly", AbortSignal: "readonly", performance: "readonly", require: "readonly", __dirname: "readonly", fetch: "readonly", Response: "readonly", Headers: "readonly", setImmediate: "readonly", structuredClone: "readonly", TextDecoder: "readonly", TextEncoder: "readonly" } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
