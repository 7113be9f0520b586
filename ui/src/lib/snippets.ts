// A request of the API shell written for another tool: cURL, HTTPie, Python (requests) and
// TypeScript (fetch). The token is read from the environment in each, never written out.

export interface ComposedRequest {
  method: string;
  /** The service's address, without a trailing slash. */
  baseUrl: string;
  /** The path with its query. */
  path: string;
  /** JSON text, or "" for none. */
  body: string;
  /** The API version it is written in. */
  version: string;
}

export type SnippetKind = "curl" | "httpie" | "python" | "typescript";

export const SNIPPET_KINDS: { id: SnippetKind; label: string }[] = [
  { id: "curl", label: "cURL" },
  { id: "httpie", label: "HTTPie" },
  { id: "python", label: "Python" },
  { id: "typescript", label: "TypeScript" },
];

/** A word the shell takes as it is. */
function shellQuoted(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The body on one line (JSON), or "" when there is none or it is not JSON. */
function compact(body: string): string {
  if (!body.trim()) return "";
  try {
    return JSON.stringify(JSON.parse(body));
  } catch {
    return body.trim();
  }
}

export function snippet(kind: SnippetKind, request: ComposedRequest): string {
  const url = `${request.baseUrl.replace(/\/$/, "")}${request.path}`;
  const method = request.method.toUpperCase();
  const body = compact(request.body);
  switch (kind) {
    case "curl": {
      const parts = [`curl -X ${method} ${shellQuoted(url)}`];
      parts.push(`-H "Authorization: Bearer $SUBSCRIBER_TOKEN"`);
      parts.push(`-H ${shellQuoted(`Subscriber-Version: ${request.version}`)}`);
      if (body) {
        parts.push(`-H 'Content-Type: application/json'`);
        parts.push(`--data ${shellQuoted(body)}`);
      }
      return parts.join(" \\\n  ");
    }
    case "httpie": {
      const parts = [`http ${method} ${shellQuoted(url)}`];
      parts.push(`"Authorization:Bearer $SUBSCRIBER_TOKEN"`);
      parts.push(shellQuoted(`Subscriber-Version:${request.version}`));
      const line = parts.join(" \\\n  ");
      return body ? `echo ${shellQuoted(body)} | ${line}` : line;
    }
    case "python": {
      const lines = [
        "import os",
        "import requests",
        "",
        `response = requests.request(`,
        `    ${JSON.stringify(method)},`,
        `    ${JSON.stringify(url)},`,
        `    headers={`,
        `        "Authorization": f"Bearer {os.environ['SUBSCRIBER_TOKEN']}",`,
        `        "Subscriber-Version": ${JSON.stringify(request.version)},`,
        `    },`,
      ];
      if (body) lines.push(`    json=${pythonLiteral(body)},`);
      lines.push(`)`, `print(response.status_code, response.json())`);
      return lines.join("\n");
    }
    case "typescript": {
      const lines = [
        `const response = await fetch(${JSON.stringify(url)}, {`,
        `  method: ${JSON.stringify(method)},`,
        `  headers: {`,
        "    Authorization: `Bearer ${process.env.SUBSCRIBER_TOKEN}`,",
        `    "Subscriber-Version": ${JSON.stringify(request.version)},`,
      ];
      if (body) lines.push(`    "Content-Type": "application/json",`);
      lines.push(`  },`);
      if (body) lines.push(`  body: JSON.stringify(${body}),`);
      lines.push(`});`, `console.log(response.status, await response.json());`);
      return lines.join("\n");
    }
  }
}

/** JSON written as a Python literal (`true` as `True`, `null` as `None`). */
function pythonLiteral(body: string): string {
  try {
    return toPython(JSON.parse(body));
  } catch {
    return JSON.stringify(body);
  }
}

function toPython(value: unknown): string {
  if (value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (Array.isArray(value)) return `[${value.map(toPython).join(", ")}]`;
  if (typeof value === "object") {
    const fields = Object.entries(value as Record<string, unknown>).map(
      ([key, field]) => `${JSON.stringify(key)}: ${toPython(field)}`,
    );
    return `{${fields.join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** The path template with its parameters filled in (`{card_id}` → `12`), and the query of the
 *  ones given. */
export function fillPath(
  template: string,
  values: Record<string, string>,
  query: string[],
): string {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? ""),
  );
  const pairs = query
    .filter((name) => (values[name] ?? "").trim() !== "")
    .map((name) => `${encodeURIComponent(name)}=${encodeURIComponent(values[name].trim())}`);
  return pairs.length ? `${path}?${pairs.join("&")}` : path;
}
