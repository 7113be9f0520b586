// Merchant lookup: the forms' input made into a query (or the fields to fix), and how a match
// reads (confidence, postcode, distance).
import type { DiscoveredMerchant } from "./bindings/DiscoveredMerchant";
import type { LookupQuery } from "./bindings/LookupQuery";
import { optionalNumber } from "./forms";

export type LookupMode = LookupQuery["by"];

export interface LookupForm {
  descriptor: string;
  street: string;
  streetNo: string;
  city: string;
  zip: string;
  countryCode: string;
  latitude: string;
  longitude: string;
  radius: string;
}

export const emptyLookupForm: LookupForm = {
  descriptor: "",
  street: "",
  streetNo: "",
  city: "",
  zip: "",
  countryCode: "",
  latitude: "",
  longitude: "",
  radius: "",
};

export type Built =
  { query: LookupQuery; problems: null } | { query: null; problems: Record<string, string> };

/** The query of a mode from what was typed, or what to fix next to which field. */
export function buildQuery(mode: LookupMode, form: LookupForm): Built {
  const problems: Record<string, string> = {};
  let query: LookupQuery | null = null;
  if (mode === "descriptor") {
    const descriptor = form.descriptor.trim();
    if (!descriptor)
      problems.descriptor = "Type what the card statement prints, e.g. SQ *BLUE HERON COFFEE";
    else query = { by: "descriptor", descriptor };
  } else if (mode === "address") {
    const address = {
      street: form.street.trim(),
      streetNo: form.streetNo.trim(),
      city: form.city.trim(),
      zip: form.zip.trim(),
      countryCode: form.countryCode.trim().toUpperCase(),
    };
    if (!address.street && !address.city && !address.zip)
      problems.street = "Give at least a street, a city or a postcode";
    if (address.countryCode && !/^[A-Z]{3}$/.test(address.countryCode)) {
      problems.countryCode = "A three-letter country code, e.g. USA";
    }
    if (Object.keys(problems).length === 0) query = { by: "address", ...address };
  } else {
    const latitude = optionalNumber(form.latitude);
    const longitude = optionalNumber(form.longitude);
    const radius = optionalNumber(form.radius);
    if (latitude === undefined || Number.isNaN(latitude) || latitude < -90 || latitude > 90) {
      problems.latitude = "A latitude from -90 to 90, e.g. 37.7557";
    }
    if (longitude === undefined || Number.isNaN(longitude) || longitude < -180 || longitude > 180) {
      problems.longitude = "A longitude from -180 to 180, e.g. -122.4211";
    }
    if (radius !== undefined && (Number.isNaN(radius) || radius <= 0))
      problems.radius = "A positive number of metres, or empty";
    if (Object.keys(problems).length === 0 && latitude !== undefined && longitude !== undefined) {
      query = { by: "position", latitude, longitude, ...(radius !== undefined ? { radius } : {}) };
    }
  }
  return query ? { query, problems: null } : { query: null, problems };
}

/** The form as it was for a query (to show a recent lookup again). */
export function formOf(query: LookupQuery): { mode: LookupMode; form: LookupForm } {
  switch (query.by) {
    case "descriptor":
      return { mode: "descriptor", form: { ...emptyLookupForm, descriptor: query.descriptor } };
    case "address":
      return {
        mode: "address",
        form: {
          ...emptyLookupForm,
          street: query.street,
          streetNo: query.streetNo,
          city: query.city,
          zip: query.zip,
          countryCode: query.countryCode,
        },
      };
    case "position":
      return {
        mode: "position",
        form: {
          ...emptyLookupForm,
          latitude: String(query.latitude),
          longitude: String(query.longitude),
          radius: query.radius === undefined ? "" : String(query.radius),
        },
      };
  }
}

export type Confidence = "high" | "medium" | "low";

/** How sure the service is, in words next to the bar. */
export function confidence(score: number): Confidence {
  if (score >= 80) return "high";
  if (score >= 50) return "medium";
  return "low";
}

/** The bar's filled share, 0 to 100. */
export function confidenceWidth(score: number): number {
  if (!Number.isFinite(score)) return 0;
  return Math.max(0, Math.min(100, score));
}

/** `comment` of a position lookup is the distance in metres. */
export function distance(metres: number): string {
  if (!Number.isFinite(metres) || metres < 0) return "";
  if (metres < 1000) return `${Math.round(metres)} m`;
  return `${(metres / 1000).toFixed(metres < 10_000 ? 1 : 0)} km`;
}

/**
 * Discovery gives phone numbers as numbers with the country code: a North American one reads
 * "+1 415 555 0101", others "+49 30…" as sent.
 */
export function phone(digits: number): string {
  const text = String(digits);
  const nanp = /^1(\d{3})(\d{3})(\d{4})$/.exec(text);
  if (nanp) return `+1 ${nanp[1]} ${nanp[2]} ${nanp[3]}`;
  return `+${text}`;
}

/** One line of address: "1022 Valencia St, San Francisco, CA 94110, United States". */
export function addressLine(found: DiscoveredMerchant): string {
  return [found.address, found.countryName].filter(Boolean).join(", ");
}
