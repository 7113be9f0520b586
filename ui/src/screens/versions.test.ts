import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { ApiVersion, ApiVersions as Versions } from "../lib/api";
import ApiVersions from "./developers/ApiVersions.svelte";

afterEach(() => clearMocks());

function catalogue(pinned: ApiVersion): Versions {
  return {
    pinned,
    spoken: "2026-12-01",
    versions: [
      { version: "2026-11-21", summary: "The seed specification's shapes.", changes: [] },
      {
        version: "2026-12-01",
        summary: "One consistent shape.",
        changes: [{ title: "camelCase names", description: "`client_id` is `clientId`." }],
      },
    ],
  };
}

describe("ApiVersions", () => {
  it("shows the pin and what each version changed, newest first", async () => {
    mockIPC((command) => (command === "api_versions" ? catalogue("2026-11-21") : null));
    render(ApiVersions);
    await waitFor(() =>
      expect(screen.getByTestId("api-version-pinned")).toHaveTextContent("2026-11-21"),
    );
    const versions = screen.getAllByTestId("api-version");
    expect(versions.map((item) => item.dataset.version)).toEqual(["2026-12-01", "2026-11-21"]);
    expect(versions[0]).toHaveTextContent("camelCase names");
    expect(within(versions[1]).getByText("pinned")).toBeInTheDocument();
    expect(within(versions[1]).queryByTestId("api-version-pin")).not.toBeInTheDocument();
  });

  it("moves the pin only after a confirmation", async () => {
    const moved: unknown[] = [];
    mockIPC((command, args) => {
      if (command === "api_versions") return catalogue("2026-11-21");
      if (command === "set_api_version") {
        moved.push(args);
        return catalogue("2026-12-01");
      }
      return null;
    });
    render(ApiVersions);
    await fireEvent.click(await screen.findByTestId("api-version-pin"));
    expect(moved).toEqual([]);
    expect(screen.getByRole("alertdialog")).toHaveTextContent("2026-12-01");
    await fireEvent.click(screen.getByTestId("api-version-confirm"));
    await waitFor(() =>
      expect(screen.getByTestId("api-version-pinned")).toHaveTextContent("2026-12-01"),
    );
    expect(moved).toEqual([{ version: "2026-12-01" }]);
    expect(screen.getByTestId("api-version-note")).toHaveTextContent("Pinned to 2026-12-01");
    // The version just left can be pinned again.
    const first = screen.getAllByTestId("api-version")[1];
    expect(within(first).getByTestId("api-version-pin")).toBeInTheDocument();
  });
});
