import { defineConfig } from "vite";

// The console is served by the gateway from web/dist: index.html (never cached) and
// fingerprinted files under /assets/ (cached for a year). No plugin: esbuild compiles TSX.
export default defineConfig({
  base: "/",
  esbuild: { jsx: "automatic" },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    target: "es2022",
    // Never inline assets as data: URIs: the Content-Security-Policy is `default-src 'self'`.
    assetsInlineLimit: 0,
    reportCompressedSize: true,
    rollupOptions: {
      onwarn(warning, warn) {
        // Libraries' "use client" markers mean nothing without server components.
        if (warning.code === "MODULE_LEVEL_DIRECTIVE") return;
        warn(warning);
      },
    },
  },
});
