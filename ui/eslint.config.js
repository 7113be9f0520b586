// Lints the TypeScript and Svelte sources; formatting is prettier's job (see .prettierrc).
import js from "@eslint/js";
import svelte from "eslint-plugin-svelte";
import globals from "globals";
import ts from "typescript-eslint";
import svelteConfig from "./svelte.config.js";

export default ts.config(
  js.configs.recommended,
  ...ts.configs.recommended,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.browser, ...globals.node },
    },
  },
  {
    files: ["**/*.svelte", "**/*.svelte.ts"],
    languageOptions: {
      parserOptions: {
        projectService: true,
        extraFileExtensions: [".svelte"],
        parser: ts.parser,
        svelteConfig,
      },
    },
  },
  {
    rules: {
      // State holding a Map or Set is replaced whole (a new Set on each change), never mutated
      // in place, so Svelte's reactive collections are not needed.
      "svelte/prefer-svelte-reactivity": "off",
      // The live table's rows are deliberately unkeyed: rows in view are updated in place.
      "svelte/require-each-key": "off",
      // Search keys join fields with \u0001, a separator no typed text can contain.
      "no-control-regex": "off",
    },
  },
  {
    // The generated Rust bindings are rewritten by the build; the rest is build output.
    ignores: ["dist/", "node_modules/", "src/lib/bindings/"],
  },
);
