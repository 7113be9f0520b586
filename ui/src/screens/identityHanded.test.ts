import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, describe, expect, it } from "vitest";
import type { Person } from "../lib/bindings/Person";
import { samplePerson } from "../lib/fixtures.test-helpers";
import { app } from "../lib/state.svelte";
import Identity from "./Identity.svelte";

afterEach(() => {
  clearMocks();
  app.handedTo = null;
  app.route = { name: "overview" };
});

function person(overrides: Partial<Person>): Person {
  return samplePerson({
    clientUserId: "user-ada",
    metadata: { note: "met at the branch" },
    ...overrides,
  });
}

const ada = person({});
const charles = person({ personId: 8, firstName: "Charles", lastName: "Babbage" });

function serve(current: Person = ada) {
  mockIPC((command, args) => {
    switch (command) {
      case "persons":
        return [current, charles];
      case "person":
        return (args as { personId: number }).personId === charles.personId ? charles : current;
      case "countries":
        return [{ code: "USA", name: "United States of America" }];
      case "check_personal_info":
        return [];
      default:
        return null;
    }
  });
}

describe("Identity handed to the person", () => {
  it("shows only the person's own steps in their words, then comes back with their details forgotten", async () => {
    serve();
    app.route = { name: "identity", personId: ada.personId };
    render(Identity);
    await screen.findByTestId("information-form");
    expect(screen.getByTestId("person-list")).toBeInTheDocument();

    await fireEvent.click(screen.getByTestId("hand-to-person"));
    const handed = await screen.findByTestId("identity-handed");
    expect(app.handedTo).toEqual({ personId: ada.personId, firstName: "Ada" });
    expect(app.route).toEqual({ name: "identity", personId: ada.personId });
    // Nothing of the console: no other persons, notes, labels, removal or ids.
    expect(screen.queryByTestId("person-list")).toBeNull();
    expect(screen.queryByText("Charles Babbage")).toBeNull();
    expect(screen.queryByTestId("remove-person")).toBeNull();
    expect(screen.queryByTestId("person-notes")).toBeNull();
    expect(screen.queryByTestId("person-labels")).toBeNull();
    expect(handed.textContent).not.toContain("user-ada");
    expect(handed.textContent).not.toContain("ada@example.com");
    expect(screen.getByRole("heading", { name: "Your details" })).toBeInTheDocument();
    expect(document.activeElement).toBe(
      screen.getByRole("heading", { name: "Confirm your identity" }),
    );

    await fireEvent.input(screen.getByTestId("info-city"), { target: { value: "London" } });
    expect(screen.getByTestId<HTMLInputElement>("info-city").value).toBe("London");

    await fireEvent.click(screen.getByTestId("hand-back"));
    await waitFor(() => expect(screen.queryByTestId("identity-handed")).toBeNull());
    expect(app.handedTo).toBeNull();
    await screen.findByTestId("person-list");
    // What the person typed is not left for the next one to read.
    expect((await screen.findByTestId<HTMLInputElement>("info-city")).value).toBe("");
  });

  it("is not offered for a verified person", async () => {
    serve(person({ status: "verified", verified: true }));
    app.route = { name: "identity", personId: ada.personId };
    render(Identity);
    await screen.findByTestId("identity-outcome");
    expect(screen.queryByTestId("hand-to-person")).toBeNull();
  });
});
