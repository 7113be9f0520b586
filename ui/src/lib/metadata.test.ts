import { describe, expect, it } from "vitest";
import { notesPatch, rowsOf } from "./metadata";

describe("notesPatch", () => {
  const before = { plan: "gold", region: "eu" };

  it("sends only what changed, and a removed note as an empty value", () => {
    const rows = rowsOf(before);
    rows[0].value = "platinum";
    rows[1].removed = true;
    rows.push({ key: "tier", value: "2", removed: false, existing: false });
    expect(notesPatch(before, rows)).toEqual({
      patch: { plan: "platinum", region: "", tier: "2" },
      problems: {},
      changed: true,
    });
  });

  it("says nothing changed when nothing did, and ignores a blank new row", () => {
    const rows = [...rowsOf(before), { key: "", value: "", removed: false, existing: false }];
    expect(notesPatch(before, rows).changed).toBe(false);
  });

  it("finds what the service would refuse before sending", () => {
    const rows = [
      { key: "x".repeat(41), value: "a", removed: false, existing: false },
      { key: "plan", value: "", removed: false, existing: true },
      { key: "", value: "orphan", removed: false, existing: false },
      { key: "note", value: "y".repeat(501), removed: false, existing: false },
    ];
    const { problems } = notesPatch(before, rows);
    expect(Object.keys(problems).sort()).toEqual(["0", "1", "2", "3"]);
  });

  it("counts the notes kept against the limit of twenty", () => {
    const many = Array.from({ length: 21 }, (_, index) => ({
      key: `k${index}`,
      value: "v",
      removed: false,
      existing: false,
    }));
    expect(notesPatch({}, many).problems[-1]).toMatch(/At most 20/);
  });
});
