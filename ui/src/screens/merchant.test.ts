import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Lookup } from "../lib/api";
import type { MerchantCategory } from "../lib/bindings/MerchantCategory";
import CategoryPicker from "../lib/components/CategoryPicker.svelte";
import LookupScreen from "./Lookup.svelte";
import MerchantEnroll from "./MerchantEnroll.svelte";
import AddLocation from "./AddLocation.svelte";

afterEach(() => clearMocks());

const CATEGORIES: MerchantCategory[] = [
  { code: "5812", description: "Eating Places, Restaurants" },
  { code: "5814", description: "Fast Food Restaurants" },
];

describe("CategoryPicker", () => {
  it("searches as you type and picks with the keyboard", async () => {
    const search = vi.fn(async (query: string) =>
      CATEGORIES.filter((category) =>
        `${category.code} ${category.description}`.toLowerCase().includes(query),
      ),
    );
    const picked = { value: "" };
    render(CategoryPicker, {
      props: {
        search,
        get value() {
          return picked.value;
        },
        set value(next: string) {
          picked.value = next;
        },
      },
    });
    const input = screen.getByRole("combobox");
    await fireEvent.input(input, { target: { value: "rest" } });
    await waitFor(() => expect(screen.getAllByRole("option")).toHaveLength(2));
    expect(search).toHaveBeenLastCalledWith("rest");
    expect(input).toHaveAttribute("aria-expanded", "true");
    expect(screen.getAllByRole("option")[0]).toHaveAttribute("aria-selected", "true");
    await fireEvent.keyDown(input, { key: "ArrowDown" });
    expect(screen.getAllByRole("option")[1]).toHaveAttribute("aria-selected", "true");
    await fireEvent.keyDown(input, { key: "Enter" });
    expect(picked.value).toBe("5814");
    expect(input).toHaveValue("5814 Fast Food Restaurants");
    expect(screen.queryByRole("listbox")).not.toBeInTheDocument();
  });

  it("says when nothing matches, and Escape closes the list", async () => {
    render(CategoryPicker, { props: { value: "", search: async () => [] } });
    const input = screen.getByRole("combobox");
    await fireEvent.input(input, { target: { value: "zzz" } });
    await waitFor(() =>
      expect(screen.getByRole("listbox")).toHaveTextContent("No category matches"),
    );
    await fireEvent.keyDown(input, { key: "Escape" });
    expect(screen.queryByRole("listbox")).not.toBeInTheDocument();
  });
});

describe("AddLocation", () => {
  it("counts the statement descriptor against its limit as the city is typed", async () => {
    mockIPC((command, args) => {
      if (command === "check_location") return [];
      if (command === "statement_descriptor") {
        const { merchantName, city } = args as { merchantName: string; city: string };
        const whole = `${merchantName} ${city}`.toUpperCase();
        return { text: whole.slice(0, 22), width: 22, cut: whole.length > 22 };
      }
      return null;
    });
    render(AddLocation, {
      countries: [{ code: "USA", name: "United States of America" }],
      defaultCountry: "USA",
      merchantName: "Blue Heron",
      onAdded: vi.fn(),
      onCancel: vi.fn(),
    });
    const city = screen.getByTestId("location-city");
    await fireEvent.input(city, { target: { value: "Napa" } });
    await waitFor(() =>
      expect(screen.getByTestId("location-descriptor-count")).toHaveTextContent("15/22"),
    );
    expect(screen.getByTestId("location-descriptor-count")).not.toHaveClass("full");
    await fireEvent.input(city, { target: { value: "San Francisco" } });
    await waitFor(() =>
      expect(screen.getByTestId("location-descriptor-count")).toHaveTextContent("22/22"),
    );
    expect(screen.getByTestId("location-descriptor-count")).toHaveClass("full");
    expect(screen.getByTestId("location-descriptor-preview")).toHaveTextContent("the end is cut");
  });
});

describe("MerchantEnroll", () => {
  it("shows the service's rules next to a field once it is left, and enrolls a valid form", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((command, args) => {
      calls.push([command, args]);
      if (command === "countries") return [{ code: "USA", name: "United States of America" }];
      if (command === "search_categories") return CATEGORIES;
      if (command === "check_merchant") {
        const merchant = (args as { merchant: { name: string; category: string } }).merchant;
        const errors = [];
        if (!merchant.name.trim()) errors.push({ field: "name", message: "is required" });
        if (!/^\d{4}$/.test(merchant.category))
          errors.push({ field: "category", message: "must be a 4-digit merchant category code" });
        return errors;
      }
      if (command === "enroll_merchant") return { merchantId: 7, name: "Diner", locations: [] };
      return null;
    });
    const onEnrolled = vi.fn();
    render(MerchantEnroll, { onEnrolled });
    const name = screen.getByTestId("merchant-name");
    await fireEvent.blur(name);
    await waitFor(() =>
      expect(screen.getByTestId("merchant-name-error")).toHaveTextContent("The name is required"),
    );
    expect(name).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByTestId("merchant-category-error")).not.toBeInTheDocument();

    await fireEvent.click(screen.getByTestId("merchant-submit"));
    await waitFor(() => expect(screen.getByTestId("merchant-category-error")).toBeInTheDocument());
    expect(calls.some(([command]) => command === "enroll_merchant")).toBe(false);

    await fireEvent.input(name, { target: { value: "Diner" } });
    await fireEvent.input(screen.getByTestId("category-input"), { target: { value: "5812" } });
    await waitFor(() =>
      expect(screen.queryByTestId("merchant-name-error")).not.toBeInTheDocument(),
    );
    await fireEvent.click(screen.getByTestId("merchant-submit"));
    await waitFor(() => expect(onEnrolled).toHaveBeenCalledOnce());
    expect(calls.find(([command]) => command === "enroll_merchant")?.[1]).toEqual({
      merchant: { name: "Diner", category: "5812", countryCode: "USA" },
    });
  });
});

describe("Lookup", () => {
  const found: Lookup = {
    query: { by: "descriptor", descriptor: "SQ *BLUE HERON COFFEE" },
    label: "SQ *BLUE HERON COFFEE",
    at: "2026-03-01T10:00:00Z",
    result: {
      message: "2 merchant(s) found",
      merchants: [
        {
          descriptor: "SQ *BLUE HERON COFFEE",
          address: "1022 Valencia St, San Francisco, CA 94110",
          category: "5814 Fast Food Restaurants",
          city: "San Francisco",
          comment: 0,
          confScore: 97,
          countryCode: "USA",
          countryName: "United States",
          dbaName: "Blue Heron Coffee",
          locationId: 100000001,
          phoneNumber: 14155550100,
          zip: 94110,
          brandId: "brd_00000000000000a1",
          website: "blueheroncoffee.com",
          logoUrl: "/brands/brd_00000000000000a1/logo.svg",
          confidence: "very_high",
          reasons: ["intermediary_stripped", "descriptor_exact"],
        },
        {
          descriptor: "BLUE HERON BOOKS",
          address: "5 Elm St, Austin, TX 78701",
          category: "5942 Book Stores",
          city: "Austin",
          comment: 0,
          confScore: 41,
          countryCode: "USA",
          countryName: "United States",
          dbaName: "Blue Heron Books",
          locationId: 42,
          phoneNumber: 0,
          zip: 78701,
          brandId: "brd_00000000000000b2",
          website: null,
          logoUrl: "/brands/brd_00000000000000b2/logo.svg",
          confidence: "medium",
          reasons: ["descriptor_fuzzy"],
        },
      ],
    },
  };

  it("looks up a descriptor and shows ranked matches with a confidence bar, and the session's lookups", async () => {
    const calls: [string, unknown][] = [];
    let recent: Lookup[] = [];
    mockIPC((command, args) => {
      calls.push([command, args]);
      if (command === "recent_lookups") return recent;
      if (command === "merchant") return { merchantId: 1, locations: [{ locationId: 42 }] };
      if (command === "countries") return [{ code: "USA", name: "United States of America" }];
      if (command === "lookup") {
        recent = [found];
        return found;
      }
      return null;
    });
    render(LookupScreen);
    await waitFor(() =>
      expect(screen.getByTestId("recent-lookups")).toHaveTextContent(
        "Lookups of this session appear here",
      ),
    );
    await fireEvent.click(screen.getByTestId("lookup-submit"));
    expect(screen.getByTestId("lookup-descriptor")).toHaveAttribute("aria-invalid", "true");
    expect(calls.some(([command]) => command === "lookup")).toBe(false);

    await fireEvent.input(screen.getByTestId("lookup-descriptor"), {
      target: { value: " sq*blueheroncoffee " },
    });
    await fireEvent.click(screen.getByTestId("lookup-submit"));
    await waitFor(() => expect(screen.getAllByTestId("lookup-match")).toHaveLength(2));
    expect(calls.find(([command]) => command === "lookup")?.[1]).toEqual({
      query: { by: "descriptor", descriptor: "sq*blueheroncoffee" },
    });
    const [best, second] = screen.getAllByTestId("lookup-match");
    expect(best).toHaveTextContent("Blue Heron Coffee");
    expect(best).toHaveTextContent("5814 Fast Food Restaurants");
    expect(best).toHaveTextContent("1022 Valencia St, San Francisco, CA 94110, United States");
    expect(best).toHaveTextContent("+1 415 555 0100");
    expect(screen.getAllByRole("meter")[0]).toHaveAttribute("aria-valuenow", "97");
    expect(best).toHaveTextContent("97% high");
    expect(second).toHaveTextContent("your location");
    expect(second).toHaveTextContent("41% low");
    // The app's own sentence, not the service's "2 merchant(s) found".
    expect(screen.getByTestId("lookup-message")).toHaveTextContent(/^2 merchants found$/);
    await waitFor(() => expect(screen.getAllByTestId("recent-lookup")).toHaveLength(1));
    expect(screen.getByTestId("recent-lookup")).toHaveTextContent("descriptor · 2 found");
  });

  it("puts the service's field errors next to the field, with the message and request id", async () => {
    mockIPC((command) => {
      if (command === "recent_lookups") return [];
      if (command === "merchant") return null;
      if (command === "lookup") {
        throw {
          code: "invalid_request",
          message: "the lookup is not valid",
          requestId: "req_7",
          status: 400,
          details: [{ field: "radius", message: "must be at most 50000 metres" }],
        };
      }
      return null;
    });
    render(LookupScreen);
    await fireEvent.click(screen.getByTestId("lookup-mode-position"));
    await fireEvent.input(screen.getByTestId("lookup-latitude"), { target: { value: "37.7" } });
    await fireEvent.input(screen.getByTestId("lookup-longitude"), { target: { value: "-122.4" } });
    await fireEvent.input(screen.getByTestId("lookup-radius"), { target: { value: "90000" } });
    await fireEvent.click(screen.getByTestId("lookup-submit"));
    await waitFor(() =>
      expect(screen.getByTestId("lookup-radius")).toHaveAttribute("aria-invalid", "true"),
    );
    expect(screen.getByText("The radius must be at most 50000 metres.")).toBeInTheDocument();
    expect(screen.getByRole("alert")).toHaveTextContent("The lookup is not valid.");
    await fireEvent.click(screen.getByTestId("error-details-toggle"));
    expect(screen.getByTestId("request-id")).toHaveTextContent("req_7");
  });

  it("shows the service's error with its request id", async () => {
    mockIPC((command) => {
      if (command === "recent_lookups") return [];
      if (command === "merchant") return null;
      if (command === "lookup")
        throw {
          code: "rate_limited",
          message: "too many lookups",
          requestId: "req_9",
          status: 429,
          details: [],
        };
      return null;
    });
    render(LookupScreen);
    await fireEvent.input(screen.getByTestId("lookup-descriptor"), {
      target: { value: "NORTHWIND AIR" },
    });
    await fireEvent.click(screen.getByTestId("lookup-submit"));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Too many lookups."));
    await fireEvent.click(screen.getByTestId("error-details-toggle"));
    expect(screen.getByTestId("request-id")).toHaveTextContent("req_9");
  });
});
