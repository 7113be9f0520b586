// The app's commands are named in four places that must agree: the permissions `build.rs`
// generates, the handlers `generate_handler!` registers, the window's capability and the calls
// of the one IPC wrapper. A command missing from any of them fails here, not in the window.
// @vitest-environment node
import { describe, expect, it } from "vitest";

// Node's fs, read through a name so the UI's type check (browser types only) does not need
// Node's declarations; Vite would refuse `?raw` imports from outside ui/.
const fsModule = "node:fs";
const { readFileSync } = (await import(/* @vite-ignore */ fsModule)) as {
  readFileSync: (path: URL, encoding: "utf8") => string;
};
const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
const buildScript = read("src-tauri/build.rs");
const capabilityFile = read("src-tauri/capabilities/main-window.json");
const appSource = read("src-tauri/src/lib.rs");
const wrapperSource = read("ui/src/lib/api.ts");

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

function buildScriptCommands(): string[] {
  const list = buildScript.match(/const COMMANDS: &\[&str\] = &\[([\s\S]*?)\];/);
  if (!list) throw new Error("no COMMANDS list in src-tauri/build.rs");
  return sorted([...list[1].matchAll(/"([a-z_]+)"/g)].map((match) => match[1]));
}

function registeredHandlers(): string[] {
  const list = appSource.match(/generate_handler!\[([\s\S]*?)\]/);
  if (!list) throw new Error("no generate_handler! in src-tauri/src/lib.rs");
  return sorted([...list[1].matchAll(/commands::([a-z_]+)/g)].map((match) => match[1]));
}

function capabilityCommands(): string[] {
  const capability = JSON.parse(capabilityFile) as { permissions: string[] };
  return sorted(
    capability.permissions
      .filter((permission) => permission.startsWith("allow-"))
      .map((permission) => permission.slice("allow-".length).replaceAll("-", "_")),
  );
}

function wrapperCalls(): string[] {
  return sorted(
    [...wrapperSource.matchAll(/\b(?:call|follow|loadBatches)(?:<[^>(]*>)?\(\s*"([a-z_]+)"/g)].map(
      (match) => match[1],
    ),
  );
}

describe("the command list", () => {
  it("is the same in build.rs, generate_handler!, the capability and api.ts", () => {
    const commands = buildScriptCommands();
    expect(commands.length).toBeGreaterThan(40);
    expect(registeredHandlers()).toEqual(commands);
    expect(capabilityCommands()).toEqual(commands);
    expect(wrapperCalls()).toEqual(commands);
  });
});
