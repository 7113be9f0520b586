// Accessibility as a gate: axe-core (the npm package, read from node_modules, so nothing is
// downloaded) put into the real app's page through WebDriver and run on what the screen shows.
// Serious and critical violations fail the test; moderate and minor ones are reported.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");

/** What WCAG 2.1 A and AA ask, and axe's best practices. */
const RULES = { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } };

/** Runs axe on the page as it is; returns every violation, each with its nodes' selectors. */
export async function axe(session) {
  const loaded = await session.executeScript("return typeof window.axe === 'object'");
  // WebDriver's scripts are not the page's: the CSP (script-src 'self') does not apply to them.
  if (!loaded) await session.executeScript(`${AXE_SOURCE}\n;return true;`);
  const result = await session.executeAsyncScript(
    `const done = arguments[arguments.length - 1];
     window.axe.run(document, arguments[0]).then(
       (found) => done({ violations: found.violations.map((v) => ({
         id: v.id, impact: v.impact, help: v.help,
         nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
       })) }),
       (error) => done({ error: String(error) }),
     );`,
    RULES,
  );
  if (result.error) throw new Error(`axe did not run: ${result.error}`);
  return result.violations;
}

/** Fails on any serious or critical violation of the screen `name`; logs the others. */
export async function assertAccessible(session, name) {
  await session.manage().setTimeouts({ script: 60_000 });
  const violations = await axe(session);
  const blocking = violations.filter((violation) => violation.impact === "serious" || violation.impact === "critical");
  for (const violation of violations.filter((candidate) => !blocking.includes(candidate)))
    console.log(`axe ${name}: ${violation.impact} ${violation.id} (${violation.nodes.length}): ${violation.help}`);
  if (blocking.length) {
    const said = blocking
      .map((violation) =>
        `${violation.impact} ${violation.id}: ${violation.help}\n${violation.nodes
          .slice(0, 5)
          .map((node) => `    ${node.target}\n      ${node.summary?.replace(/\n/g, "\n      ")}`)
          .join("\n")}`,
      )
      .join("\n");
    throw new Error(`${name}: ${blocking.length} serious or critical accessibility violation(s)\n${said}`);
  }
  return violations;
}
