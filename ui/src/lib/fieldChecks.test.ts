import { describe, expect, it } from "vitest";
import { fieldChecks } from "./fieldChecks.svelte";
import type { FieldError } from "./bindings/FieldError";

const rules = async (input: { city: string }): Promise<FieldError[]> =>
  input.city ? [] : [{ field: "location.city", message: "is required" }];

describe("a form's inline checks", () => {
  it("shows a field's message once the field was left, and blocks a submit", async () => {
    const checks = fieldChecks(rules, { prefix: "location." });
    checks.watch({ city: "" });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(checks.shown("city")).toBeUndefined();
    checks.leave("city")();
    expect(checks.shown("city")).toBe("The city is required.");
    expect(await checks.submit({ city: "" })).toBe(false);
    expect(await checks.submit({ city: "Berlin" })).toBe(true);
    checks.refused([{ field: "location.zip", message: "is not a postcode of DEU" }]);
    expect(checks.all.zip).toBe("The postcode is not a postcode of DEU.");
  });

  it("puts the app's own messages over the service's", async () => {
    const checks = fieldChecks(rules, { extra: () => ({ latitude: "must be a number" }) });
    expect(await checks.submit({ city: "Berlin" })).toBe(false);
    expect(checks.all.latitude).toBe("The latitude must be a number.");
  });

  it("shows a refused request's messages at once, nothing left or submitted before", () => {
    const checks = fieldChecks(rules, { prefix: "address." });
    checks.refused([{ field: "address.zip", message: "must contain only letters" }]);
    expect(checks.shown("zip")).toBe("The postcode must contain only letters.");
  });
});
