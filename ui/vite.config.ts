/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// The Tauri window loads the built files; `npm run dev` serves them on a fixed port for
// `tauri dev`.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    target: "safari15",
    outDir: "dist",
    emptyOutDir: true,
    // CSS per chunk, each a file of its own loaded with a <link> (never inline: the CSP allows
    // only 'self'): the first screen parses only its own styles, the signed-in screens' come
    // with their chunk.
    cssCodeSplit: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  test: {
    environment: "jsdom",
    globals: true,
    include: ["src/**/*.test.ts"],
    setupFiles: ["src/test-setup.ts"],
    // The theme's test reads app.css as it is (`?raw`).
    css: { include: [/app\.css/] },
  },
  resolve: process.env.VITEST ? { conditions: ["browser"] } : undefined,
});
