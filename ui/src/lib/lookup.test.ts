import { describe, expect, it } from "vitest";
import type { DiscoveredMerchant } from "./bindings/DiscoveredMerchant";
import { byField, latestOnly, optionalNumber, sentence } from "./forms";
import {
  addressLine,
  buildQuery,
  confidence,
  confidenceWidth,
  distance,
  emptyLookupForm,
  formOf,
  phone,
} from "./lookup";

describe("lookup queries from the forms", () => {
  it("trims a descriptor and refuses an empty one", () => {
    expect(
      buildQuery("descriptor", { ...emptyLookupForm, descriptor: "  SQ *BLUE HERON COFFEE " }),
    ).toEqual({
      query: { by: "descriptor", descriptor: "SQ *BLUE HERON COFFEE" },
      problems: null,
    });
    const empty = buildQuery("descriptor", emptyLookupForm);
    expect(empty.query).toBeNull();
    expect(empty.problems).toHaveProperty("descriptor");
  });

  it("needs a street, city or postcode, and a three-letter country", () => {
    expect(buildQuery("address", { ...emptyLookupForm, streetNo: "1022" }).problems).toHaveProperty(
      "street",
    );
    expect(
      buildQuery("address", { ...emptyLookupForm, zip: "94110", countryCode: "US" }).problems,
    ).toEqual({
      countryCode: "A three-letter country code, e.g. USA",
    });
    expect(
      buildQuery("address", {
        ...emptyLookupForm,
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
      buildQuery("position", { ...emptyLookupForm, latitude: "37,7557", longitude: "-122.4211" })
        .query,
    ).toEqual({
      by: "position",
      latitude: 37.7557,
      longitude: -122.4211,
    });
    expect(
      buildQuery("position", {
        ...emptyLookupForm,
        latitude: "37.7",
        longitude: "-122.4",
        radius: "200",
      }).query,
    ).toMatchObject({
      radius: 200,
    });
    const wrong = buildQuery("position", {
      ...emptyLookupForm,
      latitude: "91",
      longitude: "east",
      radius: "-5",
    });
    expect(Object.keys(wrong.problems ?? {}).sort()).toEqual(["latitude", "longitude", "radius"]);
  });

  it("restores the form of a recent lookup", () => {
    const query = { by: "position" as const, latitude: 37.7557, longitude: -122.4211, radius: 200 };
    const restored = formOf(query);
    expect(restored.mode).toBe("position");
    expect(buildQuery(restored.mode, restored.form).query).toEqual(query);
  });
});

describe("how a match reads", () => {
  it("puts the confidence in words and bounds the bar", () => {
    expect([confidence(97), confidence(80), confidence(62), confidence(12)]).toEqual([
      "high",
      "high",
      "medium",
      "low",
    ]);
    expect([
      confidenceWidth(140),
      confidenceWidth(-3),
      confidenceWidth(Number.NaN),
      confidenceWidth(55),
    ]).toEqual([100, 0, 0, 55]);
  });

  it("gives distances in metres, then kilometres", () => {
    expect([distance(0), distance(35.4), distance(1250), distance(23_400)]).toEqual([
      "0 m",
      "35 m",
      "1.3 km",
      "23 km",
    ]);
  });

  it("writes phone numbers with their calling code", () => {
    expect(phone(14155550101)).toBe("+1 415 555 0101");
    expect(phone(4930123456)).toBe("+4930123456");
  });

  it("writes the address with the country", () => {
    const found = {
      address: "1022 Valencia St, San Francisco, CA 94110",
      countryName: "United States",
    } as DiscoveredMerchant;
    expect(addressLine(found)).toBe("1022 Valencia St, San Francisco, CA 94110, United States");
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
      city: "The city is required",
      longitude: "The longitude is required when latitude is sent: send both or neither",
    });
    expect(sentence("name", "Already a sentence")).toBe("Already a sentence");
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
