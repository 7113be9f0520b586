import "@testing-library/jest-dom/vitest";

// jsdom lays nothing out, so it has no ResizeObserver: an observer that never fires is what a
// layout-free page would report anyway.
if (!("ResizeObserver" in globalThis)) {
  globalThis.ResizeObserver = class {
    observe(): void {}
    unobserve(): void {}
    disconnect(): void {}
  };
}
