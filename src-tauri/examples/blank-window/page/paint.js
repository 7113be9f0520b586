// After the first frame is on screen, say so (the dashboard does the same for its first screen).
requestAnimationFrame(() =>
  requestAnimationFrame(() => window.__TAURI_INTERNALS__.invoke("app_ready").catch(() => undefined)),
);
