// The person's browser, played over HTTP: it keeps the service's cookies (the hosted pages
// bind their forms to an HttpOnly cookie), reads the one form of a hosted page, and posts it
// back as a browser would, following the redirects between the bank's pages.

const entities = { amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'", "#x27": "'" };

function decode(text) {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_, name) => entities[name]);
}

function attributes(tag) {
  const found = {};
  for (const [, name, , value] of tag.matchAll(/([a-zA-Z-]+)(="([^"]*)")?/g)) found[name.toLowerCase()] = decode(value ?? "");
  return found;
}

export class PersonBrowser {
  #cookies = new Map();

  #cookieHeader() {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  #keep(response) {
    for (const cookie of response.headers.getSetCookie?.() ?? []) {
      const [pair] = cookie.split(";");
      const at = pair.indexOf("=");
      if (at > 0) this.#cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
  }

  async #request(url, init = {}) {
    let response = await fetch(url, { ...init, redirect: "manual", headers: { ...init.headers, cookie: this.#cookieHeader() } });
    this.#keep(response);
    let at = url;
    // A 303 after a form: the browser loads the next page with GET.
    for (let hops = 0; response.status >= 300 && response.status < 400 && hops < 5; hops += 1) {
      at = new URL(response.headers.get("location"), at).href;
      response = await fetch(at, { redirect: "manual", headers: { cookie: this.#cookieHeader() } });
      this.#keep(response);
    }
    return new HostedPage(at, response.status, await response.text());
  }

  /** Opens a link, as the system browser would. */
  open(url) {
    return this.#request(url);
  }

  /** Posts the page's form with what the person typed (`fields`) over its own hidden fields and ticks. */
  submit(page, fields = {}) {
    const form = page.form();
    const body = new URLSearchParams({ ...form.fields, ...fields });
    return this.#request(form.action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(page.url).origin },
      body: body.toString(),
    });
  }
}

export class HostedPage {
  constructor(url, status, html) {
    this.url = url;
    this.status = status;
    this.html = html;
  }

  get title() {
    const match = /<h1[^>]*>([\s\S]*?)<\/h1>/.exec(this.html);
    return match ? decode(match[1].replace(/<[^>]+>/g, "")).trim() : "";
  }

  /** The text of an element by id, tags removed. */
  text(id) {
    const match = new RegExp(`<[a-z0-9]+[^>]*id="${id}"[^>]*>([\\s\\S]*?)</`).exec(this.html);
    return match ? decode(match[1].replace(/<[^>]+>/g, "")).trim() : null;
  }

  /** The page's form: where it posts, and the fields a browser sends without typing
   * (hidden fields, ticked boxes). */
  form() {
    const match = /<form([^>]*)>([\s\S]*?)<\/form>/.exec(this.html);
    if (!match) throw new Error(`no form on ${this.url} (${this.status}): ${this.title}`);
    const action = new URL(attributes(match[1]).action ?? "", this.url).href;
    const fields = {};
    for (const [tag] of match[2].matchAll(/<input[^>]*>/g)) {
      const input = attributes(tag);
      if (!input.name) continue;
      if (input.type === "hidden") fields[input.name] = input.value ?? "";
      if (input.type === "checkbox" && "checked" in input) fields[input.name] = input.value || "on";
    }
    return { action, fields };
  }
}
