import { fireEvent, render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { createRawSnippet } from "svelte";
import { ApiError } from "../api";
import type { CardTransaction } from "../bindings/CardTransaction";
import { defaultSort, prepare } from "../transactions";
import ErrorNote from "./ErrorNote.svelte";
import SecretField from "./SecretField.svelte";
import TransactionTable from "./TransactionTable.svelte";
import EnvironmentBand from "./EnvironmentBand.svelte";
import Field from "./Field.svelte";
import Facts, { urlPieces } from "./Facts.svelte";
import LabelChips from "./LabelChips.svelte";
import { sampleTransaction } from "../fixtures.test-helpers";

describe("ErrorNote", () => {
  /** The error of a service that does not answer. */
  const unreachable = () =>
    new ApiError({
      code: "unreachable",
      message: "the service cannot be reached",
      requestId: null,
      status: null,
      details: [],
    });

  it("says the message on one line, with the code, status and request id behind Details", async () => {
    const error = new ApiError({
      code: "invalid_credentials",
      message: "the e-mail or API key is wrong",
      requestId: "req_123abc",
      status: 401,
      details: [],
    });
    render(ErrorNote, { error });
    expect(screen.getByRole("alert")).toHaveTextContent("The e-mail or API key is wrong.");
    expect(screen.queryByText("invalid_credentials")).toBeNull();
    await fireEvent.click(screen.getByRole("button", { name: "Details" }));
    expect(screen.getByText("invalid_credentials")).toBeInTheDocument();
    expect(screen.getByText(/HTTP 401/)).toBeInTheDocument();
    expect(screen.getByTestId("request-id")).toHaveTextContent("req_123abc");
    expect(screen.getByRole("button", { name: "Copy id" })).toBeInTheDocument();
  });

  it("makes an unreachable service its own state with a retry", async () => {
    const onRetry = vi.fn();
    render(ErrorNote, { error: unreachable(), onRetry });
    expect(screen.getByTestId("unreachable")).toHaveTextContent("The service cannot be reached");
    await fireEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(onRetry).toHaveBeenCalledOnce();
  });

  it("says an unreachable service on one line in a form, the why behind Details", async () => {
    render(ErrorNote, { error: unreachable(), compact: true });
    expect(screen.getByTestId("unreachable")).toHaveTextContent("The service cannot be reached");
    expect(screen.queryByTestId("unreachable-details")).toBeNull();
    await fireEvent.click(screen.getByRole("button", { name: "Details" }));
    expect(screen.getByTestId("unreachable-details")).toHaveTextContent(/Nothing answered/);
  });
});

describe("Field", () => {
  it("says its hint after the label with a space either side of the dot", () => {
    const children = createRawSnippet((control: () => { id: string }) => ({
      render: () => `<input id="${control().id}" />`,
    }));
    render(Field, { label: "Phone", hint: "optional", id: "phone", children });
    expect(screen.getByLabelText("Phone · optional")).toBeInTheDocument();
  });
});

describe("SecretField", () => {
  it("is masked until revealed, and fetches the secret only then", async () => {
    const load = vi.fn(async () => "sk_sandbox_abcdefghijklmnop");
    render(SecretField, { load });
    expect(screen.getByTestId("secret")).not.toHaveTextContent("sk_sandbox");
    expect(load).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId("secret-reveal"));
    await waitFor(() =>
      expect(screen.getByTestId("secret")).toHaveTextContent("sk_sandbox_abcdefghijklmnop"),
    );
    await fireEvent.click(screen.getByTestId("secret-reveal"));
    expect(screen.getByTestId("secret")).not.toHaveTextContent("sk_sandbox");
  });

  it("says Copied after copying", async () => {
    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    render(SecretField, { load: async () => "sk_sandbox_copy" });
    await fireEvent.click(screen.getByTestId("secret-copy"));
    await waitFor(() => expect(screen.getByTestId("secret-copy")).toHaveTextContent("Copied"));
    expect(writeText).toHaveBeenCalledWith("sk_sandbox_copy");
  });
});

describe("EnvironmentBand", () => {
  it("labels the sandbox as test data", () => {
    render(EnvironmentBand, { environment: "sandbox" });
    expect(screen.getByTestId("environment-band")).toHaveTextContent("Sandbox — test data");
  });
  it("warns that established requests are billed", () => {
    render(EnvironmentBand, { environment: "established" });
    expect(screen.getByTestId("environment-band")).toHaveTextContent(
      /production, requests are billed/,
    );
  });
});

describe("TransactionTable", () => {
  function transaction(index: number, overrides: Partial<CardTransaction> = {}): CardTransaction {
    return sampleTransaction({
      transactionId: index + 1,
      createdAt: new Date(Date.UTC(2026, 0, 1) - index * 60_000).toISOString(),
      amount: 12.5,
      merchantName: `Merchant ${index}`,
      descriptor: `MERCHANT ${index}`,
      ...overrides,
    });
  }

  it("puts only the rows in view on the page, even for 100,000 rows", () => {
    const rows = Array.from({ length: 100_000 }, (_, index) => prepare(transaction(index)));
    render(TransactionTable, {
      rows,
      sort: defaultSort,
      onSort: () => undefined,
      flashing: new Set<number>(),
    });
    const shown = screen.getAllByTestId("transaction-row");
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(100);
    expect(screen.getByTestId("transaction-table")).toHaveAttribute("aria-rowcount", "100000");
    expect(shown[0]).toHaveTextContent("Merchant 0");
  });

  it("marks pending rows and refunds, right-aligns money, flashes live arrivals", () => {
    const rows = [
      prepare(transaction(0, { pending: true })),
      prepare(transaction(1, { amount: -7.25 })),
    ];
    render(TransactionTable, {
      rows,
      sort: defaultSort,
      onSort: () => undefined,
      flashing: new Set([1]),
    });
    const [pending, refund] = screen.getAllByTestId("transaction-row");
    expect(pending).toHaveClass("pending");
    expect(pending).toHaveTextContent("pending");
    expect(pending).toHaveClass("flash");
    expect(refund).toHaveTextContent("refund");
    expect(refund).toHaveTextContent("-7.25 USD");
  });

  it("sorts when a column header is clicked", async () => {
    const onSort = vi.fn();
    render(TransactionTable, {
      rows: [prepare(transaction(0))],
      sort: defaultSort,
      onSort,
      flashing: new Set<number>(),
    });
    await fireEvent.click(screen.getByTestId("sort-amount"));
    expect(onSort).toHaveBeenCalledWith("amount");
    expect(screen.getByRole("columnheader", { name: /Date/ })).toHaveAttribute(
      "aria-sort",
      "descending",
    );
  });
});

describe("Facts", () => {
  it("keeps ids on one line, wraps URLs only at / ? &, and shows a status as its pill", () => {
    expect(urlPieces("https://host:8080/card/12?from=1&to=2")).toEqual([
      "https://",
      "host:8080/",
      "card/",
      "12?",
      "from=1&",
      "to=2",
    ]);
    const { container } = render(Facts, {
      facts: [
        { label: "Status", value: "404 Not Found", tag: "warn" },
        { label: "Request id", value: "req_0123456789abcdef", mono: true, copy: true },
        { label: "URL", value: "https://host/card/12?from=1", mono: true, wrap: "url" },
      ],
    });
    expect(screen.getByText("404 Not Found")).toHaveClass("tag", "warn");
    const id = screen.getByText("req_0123456789abcdef");
    expect(id).toHaveClass("id");
    expect(id).toHaveAttribute("title", "req_0123456789abcdef");
    expect(container.querySelectorAll(".url wbr")).toHaveLength(5);
    expect(container.querySelector(".url")).toHaveTextContent("https://host/card/12?from=1");
  });
});

describe("LabelChips", () => {
  it("shows nothing for an object with neither a user nor notes", () => {
    render(LabelChips, { clientUserId: null, metadata: {}, testid: "labels" });
    expect(screen.queryByTestId("labels")).toBeNull();
  });

  it("shows the user and each note, a long value cut and whole in its tooltip", () => {
    const long = "x".repeat(60);
    render(LabelChips, {
      clientUserId: "user_42",
      metadata: { plan: "gold", note: long },
      testid: "labels",
    });
    const chips = screen.getByTestId("labels");
    expect(chips).toHaveTextContent("user user_42");
    expect(chips).toHaveTextContent("plan gold");
    expect(chips).not.toHaveTextContent(long);
    expect(screen.getByTitle(`note: ${long}`)).toBeInTheDocument();
  });
});
