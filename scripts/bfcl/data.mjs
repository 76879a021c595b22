/**
 * Reads a BFCL folder: `question/<file>.json` and `possible_answer/<file>.json`, both JSON Lines.
 * A question file without an answer file is an irrelevance category (no tool may run). Data is
 * read in place, never copied.
 * @module
 */
import { readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * @typedef {{ id: string, content: string, functions: any[], groundTruth: unknown[] | null }} BfclCase
 * `groundTruth` is `null` in irrelevance categories.
 * @typedef {{ name: string, file: string, irrelevance: boolean, cases: BfclCase[], problems: string[] }} BfclCategory
 * `problems` lists data that could not be used (bad JSON, unmatched ids); each makes the run fail.
 */

/**
 * Loads every category file of a folder, sorted by category name.
 * @param {string} folder contains `question/` and, for answerable categories, `possible_answer/`
 * @returns {Promise<BfclCategory[]>}
 * @throws Error when `question/` is missing or holds no `.json` file
 */
export async function loadFolder(folder) {
  const questionDir = join(folder, "question");
  if (!existsSync(questionDir)) throw new Error(`${folder}: no question/ folder (is this a BFCL data folder?)`);
  const files = (await readdir(questionDir)).filter((f) => f.endsWith(".json")).sort();
  if (files.length === 0) throw new Error(`${questionDir}: no .json category files`);
  const categories = [];
  for (const file of files) {
    const problems = [];
    const questions = await readJsonLines(join(questionDir, file), problems);
    const answerFile = join(folder, "possible_answer", file);
    const irrelevance = !existsSync(answerFile);
    const answers = new Map();
    if (!irrelevance) {
      for (const a of await readJsonLines(answerFile, problems)) {
        if (answers.has(a.id)) problems.push(`${a.id}: listed twice in possible_answer/${file}`);
        answers.set(a.id, a.ground_truth);
      }
    }
    const cases = [];
    for (const q of questions) {
      if (!Array.isArray(q.function)) {
        problems.push(`${q.id}: has no "function" list`);
        continue;
      }
      const groundTruth = irrelevance ? null : answers.get(q.id);
      if (!irrelevance && !Array.isArray(groundTruth)) {
        problems.push(`${q.id}: no ground_truth in possible_answer/${file}`);
        continue;
      }
      answers.delete(q.id);
      cases.push({ id: String(q.id), content: userContent(q.question), functions: q.function, groundTruth });
    }
    for (const id of answers.keys()) problems.push(`${id}: answer without a question in ${file}`);
    categories.push({ name: categoryName(file), file, irrelevance, cases, problems });
  }
  return categories.sort((a, b) => a.name.localeCompare(b.name));
}

/** `BFCL_v4_live_simple.json` -> `live_simple`. */
export function categoryName(file) {
  return file.replace(/\.json$/, "").replace(/^BFCL_v\d+_/, "");
}

/** The user's words of the first turn: every user message's content, in order. */
function userContent(question) {
  const turn = Array.isArray(question) && Array.isArray(question[0]) ? question[0] : Array.isArray(question) ? question : [];
  const parts = turn.filter((m) => m && m.role === "user").map((m) => String(m.content));
  return parts.length > 0 ? parts.join("\n\n") : String(turn.at(-1)?.content ?? "");
}

/** Parses JSON Lines; a bad line is recorded as a problem, not thrown. */
async function readJsonLines(path, problems) {
  const text = await readFile(path, "utf8");
  const rows = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      rows.push(JSON.parse(line));
    } catch (err) {
      problems.push(`${path}:${i + 1}: not JSON (${err instanceof Error ? err.message : err})`);
    }
  });
  return rows;
}
