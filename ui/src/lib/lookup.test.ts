import { describe, expect, it } from "vitest";
import type { DiscoveredMerchant } from "./bindings/DiscoveredMerchant";
import { byField, latestOnly, optionalNumber, sentence } from "./forms";
import * as lookup from "./lookup";

describe("lookup queries from the forms", () => {
  it("trims a descriptor and refuses an empty one", () => {
    expect(
      lookup.buildQuery("descriptor", {
        ...lookup.emptyLookupForm,
        descriptor: "  SQ *BLUE HERON COFFEE ",
      }),
    ).toEqual({
      query: { by: "descriptor", descriptor: "SQ *BLUE HERON COFFEE" },
      problems: null,
    });
    const empty = lookup.buildQuery("descriptor", lookup.emptyLookupForm);
    expect(empty.query).toBeNull();
    expect(empty.problems).toHaveProperty("descriptor");
  });

  it("needs a street, city or postcode, and a three-letter country", () => {
    expect(
      lookup.buildQuery("address", { ...lookup.emptyLookupForm, streetNo: "1022" }).problems,
    ).toHaveProperty("street");
    expect(
      lookup.buildQuery("address", { ...lookup.emptyLookupForm, zip: "94110", countryCode: "US" })
        .problems,
    ).toEqual({
      countryCode: "A three-letter country code, e.g. USA",
    });
    expect(
      lookup.buildQuery("address", {
        ...lookup.emptyLookupForm,
        street: "Valencia St",
        streetNo: "1022",
        countryCode: "usa",
      }).query,
    ).toEqual({
      by: "address",
      street: "Valencia St",
      streetNo: "1022",
      city: "",
      zip: "",
      countryCode: "USA",
    });
  });

  it("reads positions, with a comma as decimal point, and checks their range", () => {
    expect(
      lookup.buildQuery("position", {
        ...lookup.emptyLookupForm,
        latitude: "37,7557",
        longitude: "-122.4211",
      }).query,
    ).toEqual({
      by: "position",
      latitude: 37.7557,
      longitude: -122.4211,
    });
    expect(
      lookup.buildQuery("position", {
        ...lookup.emptyLookupForm,
        latitude: "37.7",
        longitude: "-122.4",
        radius: "200",
      }).query,
    ).toMatchObject({
      radius: 200,
    });
    const wrong = lookup.buildQuery("position", {
      ...lookup.emptyLookupForm,
      latitude: "91",
      longitude: "east",
      radius: "-5",
    });
    expect(Object.keys(wrong.problems ?? {}).sort()).toEqual(["latitude", "longitude", "radius"]);
  });

  it("restores the form of a recent lookup", () => {
    const query = { by: "position" as const, latitude: 37.7557, longitude: -122.4211, radius: 200 };
    const restored = lookup.formOf(query);
    expect(restored.mode).toBe("position");
    expect(lookup.buildQuery(restored.mode, restored.form).query).toEqual(query);
  });
});

describe("how a match reads", () => {
  it("puts the lookup.confidence in words and bounds the bar", () => {
    expect([
      lookup.confidence(97),
      lookup.confidence(80),
      lookup.confidence(62),
      lookup.confidence(12),
    ]).toEqual(["high", "high", "medium", "low"]);
    expect([
      lookup.confidenceWidth(140),
      lookup.confidenceWidth(-3),
      lookup.confidenceWidth(Number.NaN),
      lookup.confidenceWidth(55),
    ]).toEqual([100, 0, 0, 55]);
  });

  it("gives distances in metres, then kilometres", () => {
    expect([
      lookup.distance(0),
      lookup.distance(35.4),
      lookup.distance(1250),
      lookup.distance(23_400),
    ]).toEqual(["0 m", "35 m", "1.3 km", "23 km"]);
  });

  it("writes lookup.phone numbers with their calling code", () => {
    expect(lookup.phone(14155550101)).toBe("+1 415 555 0101");
    expect(lookup.phone(4930123456)).toBe("+4930123456");
  });

  it("writes the address with the country", () => {
    const found = {
      address: "1022 Valencia St, San Francisco, CA 94110",
      countryName: "United States",
    } as DiscoveredMerchant;
    expect(lookup.addressLine(found)).toBe(
      "1022 Valencia St, San Francisco, CA 94110, United States",
    );
  });
});

describe("inline validation helpers", () => {
  it("names a field's problem in a sentence, without the location. prefix", () => {
    const problems = byField(
      [
        { field: "location.city", message: "is required" },
        { field: "location.city", message: "a second message is not shown" },
        {
          field: "location.longitude",
          message: "is required when latitude is sent: send both or neither",
        },
      ],
      "location.",
    );
    expect(problems).toEqual({
      city: "The city is required.",
      longitude: "Add the longitude too, or leave both coordinates empty.",
    });
    expect(sentence("name", "Already a sentence.")).toBe("Already a sentence.");
    expect(sentence("dateOfBirth", "is in the future")).toBe("The date of birth is in the future.");
    expect(sentence("dateOfBirth", "the person must be at least 18 years old")).toBe(
      "The person must be at least 18 years old.",
    );
  });

  it("hands on only the newest answer", async () => {
    const seen: string[] = [];
    const resolvers: ((value: string) => void)[] = [];
    const check = latestOnly(
      (input: string) => new Promise<string>((resolve) => resolvers.push(() => resolve(input))),
      (output) => seen.push(output),
    );
    const first = check("old");
    const second = check("new");
    resolvers[1]("");
    await second;
    resolvers[0]("");
    await first;
    expect(seen).toEqual(["new"]);
  });

  it("reads optional numbers", () => {
    expect(optionalNumber("")).toBeUndefined();
    expect(optionalNumber(" 12.5 ")).toBe(12.5);
    expect(optionalNumber("-0,5")).toBe(-0.5);
    expect(optionalNumber("12a")).toBeNaN();
  });
});

describe("sentence, in a person's words", () => {
  it("turns the API's instructions into what to do at the form", () => {
    expect(sentence("longitude", "is required when latitude is sent: send both or neither")).toBe(
      "Add the longitude too, or leave both coordinates empty.",
    );
    expect(
      sentence(
        "countryCode",
        'is required: a three-letter country code (ISO 3166-1 alpha-3), e.g. "USA"',
      ),
    ).toBe("Choose a country.");
    expect(sentence("zip", "is required")).toBe("The postcode is required.");
  });
});
