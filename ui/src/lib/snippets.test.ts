import { describe, expect, it } from "vitest";
import { fillPath, snippet, type ComposedRequest } from "./snippets";

const post: ComposedRequest = {
  method: "post",
  baseUrl: "http://127.0.0.1:8080/",
  path: "/webhooks",
  body: '{\n  "url": "https://example.com/hook",\n  "events": ["*"],\n  "on": true, "note": null\n}',
  version: "2026-11-21",
};

describe("the API shell's snippets", () => {
  it("write the request for each tool, the token from the environment", () => {
    const curl = snippet("curl", post);
    expect(curl).toContain("curl -X POST 'http://127.0.0.1:8080/webhooks'");
    expect(curl).toContain(
      `--data '{"url":"https://example.com/hook","events":["*"],"on":true,"note":null}'`,
    );
    expect(curl).toContain("$SUBSCRIBER_TOKEN");
    expect(snippet("httpie", post)).toMatch(/^echo '.*' \| http POST/);
    const python = snippet("python", post);
    expect(python).toContain(
      `json={"url": "https://example.com/hook", "events": ["*"], "on": True, "note": None}`,
    );
    expect(python).toContain("os.environ['SUBSCRIBER_TOKEN']");
    const typescript = snippet("typescript", post);
    expect(typescript).toContain('method: "POST"');
    expect(typescript).toContain("process.env.SUBSCRIBER_TOKEN");
    const get = snippet("curl", { ...post, method: "GET", body: "" });
    expect(get).not.toContain("--data");
  });

  it("quote what the shell would read otherwise", () => {
    const quoted = snippet("curl", { ...post, body: `{"note":"it's"}` });
    expect(quoted).toContain(`--data '{"note":"it'\\''s"}'`);
  });

  it("fill a path's parameters and its query", () => {
    expect(
      fillPath("/card/{card_id}/transactions", { card_id: "12", limit: "5", from: "" }, [
        "limit",
        "from",
      ]),
    ).toBe("/card/12/transactions?limit=5");
    expect(fillPath("/events/{event_id}", { event_id: "evt 1" }, [])).toBe("/events/evt%201");
  });
});
