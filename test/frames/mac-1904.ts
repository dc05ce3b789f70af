/**
 * A workbook in the 1904 date system (Excel for Mac's old default), for the Excel readers' tests under Node
 * and Deno: one sheet whose `day` column holds a saved date and whose `formula` column a formula's saved
 * result (=A2), both counted from 1904-01-01 and shown as {@link MAC_1904_DAY}.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import * as frames from "../../src/frames";
import { TableBuilder } from "../../src/table/column-table";

/** The day both cells show. */
export const MAC_1904_DAY = new Date(Date.UTC(2026, 10, 20));

/** Writes the workbook to `file` (our own writer's output, its date system and cells rewritten with JSZip). */
export async function writeMac1904Workbook(file: string): Promise<void> {
  const day = MAC_1904_DAY;
  await frames.toExcel(new TableBuilder(1, "t").add("day", [day]).add("formula", [day]).build(), file);
  const JSZip = createRequire(__filename)("jszip") as typeof import("jszip");
  const zip = await JSZip.loadAsync(readFileSync(file));
  const workbook = await zip.file("xl/workbook.xml")!.async("string");
  zip.file("xl/workbook.xml", workbook.replace("<workbookPr ", '<workbookPr date1904="1" '));
  const serial1904 = day.getTime() / 86_400_000 + 24_107; // days from 1904-01-01
  const sheet = await zip.file("xl/worksheets/sheet1.xml")!.async("string");
  const cells = sheet
    .replace(/<c r="A2" s="(\d+)"><v>\d+<\/v><\/c>/, `<c r="A2" s="$1"><v>${serial1904}</v></c>`)
    .replace(/<c r="B2" s="(\d+)"><v>\d+<\/v><\/c>/, `<c r="B2" s="$1"><f>A2</f><v>${serial1904}</v></c>`);
  if (!cells.includes("<f>A2</f>")) throw new Error("the writer's sheet changed: no B2 date cell to make a formula of");
  zip.file("xl/worksheets/sheet1.xml", cells);
  writeFileSync(file, await zip.generateAsync({ type: "nodebuffer", compression: "DEFLATE" }));
}
