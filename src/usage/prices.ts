/**
 * The price table: USD per million tokens of each model weft names, versioned, and overridable per
 * deployment through `WEFT_PRICES`. A ledger row stores the cost computed when it was recorded and
 * the version of the table it came from, so a later price change never rewrites a past row.
 * @module
 */
import { WeftError } from "../errors.js";
import { jsonSetting } from "../config.js";
import { SCRIPTED_MODEL_ID } from "../models/scripted.js";

/** A model's price in USD per million tokens; `cachedInput` (prompt-cache reads) defaults to `input`. */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
  /** Prompt-cache writes (Anthropic); default `input`. */
  cacheWrite?: number;
}

/** A price table: its version (stored with every row priced from it) and prices by model id. */
export interface PriceTable {
  version: string;
  /** Keyed by the model id without its provider (`gpt-4.1-mini`), or by the whole `"<provider>:<model id>"`. */
  models: Record<string, Price>;
}

/**
 * Prices shipped with weft for the models its README, docs and agents name (the providers'
 * published list prices; the version is the date they were read).
 */
export const SHIPPED_PRICES: PriceTable = {
  version: "weft-2026-12-01",
  models: {
    "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
    "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
    "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
    "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
    // The first gpt-4o snapshot keeps its own, higher price (a dated id otherwise costs its family's).
    "gpt-4o-2024-05-13": { input: 5, output: 15 },
    "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
    "claude-haiku-4-5": { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
    "claude-sonnet-4-5": { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
    // weft's scripted model plays a script in the thread: no provider is called, nothing is billed.
    [SCRIPTED_MODEL_ID]: { input: 0, output: 0 },
  },
};


/**
 * The price table in force: `WEFT_PRICES` (JSON `{ "version": "...", "models": { "<model>": { "input", "output", "cachedInput"?, "cacheWrite"? } } }`)
 * laid over the shipped table, its version naming the result; unset, the shipped table.
 * @throws WeftError `invalid_config` for a `WEFT_PRICES` that is not such an object.
 */
export function priceTableOf(env: Readonly<Record<string, unknown>>): PriceTable {
  return (
    jsonSetting(env, "WEFT_PRICES", (value) => {
      const table = checkTable(value);
      return { version: table.version, models: { ...SHIPPED_PRICES.models, ...table.models } };
    }) ?? SHIPPED_PRICES
  );
}

function checkTable(value: unknown): PriceTable {
  const v = value as Partial<PriceTable> | null;
  if (!v || typeof v !== "object" || typeof v.version !== "string" || v.version === "" || !v.models || typeof v.models !== "object") {
    throw new WeftError("invalid_config", 'WEFT_PRICES: expected { "version": "<name>", "models": { "<model id>": { "input": <USD/MTok>, "output": <USD/MTok> } } }');
  }
  for (const [model, price] of Object.entries(v.models)) {
    for (const key of ["input", "output", "cachedInput", "cacheWrite"] as const) {
      const n = (price as unknown as Record<string, unknown>)[key];
      if ((key === "input" || key === "output" || n !== undefined) && (typeof n !== "number" || !(n >= 0))) {
        throw new WeftError("invalid_config", `WEFT_PRICES: models.${model}.${key} must be a number of USD per million tokens, at least 0`);
      }
    }
  }
  return v as PriceTable;
}

/** A dated snapshot's suffix: OpenAI's `-2024-08-06`, Anthropic's `-20250929`. */
const SNAPSHOT_SUFFIX = /-(?:\d{4}-\d{2}-\d{2}|\d{8})$/;

/**
 * The price of `modelId` (`"<provider>:<model id>"`) in `table`: by the whole id first, then the
 * model id alone, then, for a dated snapshot (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`),
 * its family's (`gpt-4o`, `claude-sonnet-4-5`): the providers bill a snapshot at its family's list
 * price, and a snapshot priced otherwise is listed by its own id (as `gpt-4o-2024-05-13` is).
 * Undefined when unpriced: its rows' cost is unknown (null), and a cost budget refuses it.
 */
export function priceOf(table: PriceTable, modelId: string): Price | undefined {
  const bare = modelId.includes(":") ? modelId.slice(modelId.indexOf(":") + 1) : modelId;
  // The scripted model's free price is its own: `openai-compatible:scripted` (or a dated name of it) is any model a user names so.
  const listed = (key: string) => Object.hasOwn(table.models, key) && (key !== SCRIPTED_MODEL_ID || key === modelId);
  if (listed(modelId)) return table.models[modelId];
  if (listed(bare)) return table.models[bare];
  const family = bare.replace(SNAPSHOT_SUFFIX, "");
  return family !== bare && listed(family) ? table.models[family] : undefined;
}

/** Token counts a cost is computed from (input includes cache reads and writes, as the AI SDK counts it). */
export interface PricedTokens {
  input: number;
  output: number;
  cached: number;
  cacheWrite: number;
}

/**
 * What tokens cost at `price`, in micro-USD (millionths of a dollar), rounded up so a budget never
 * counts less than was spent.
 */
export function costMicroUsd(tokens: PricedTokens, price: Price): number {
  const fresh = Math.max(0, tokens.input - tokens.cached - tokens.cacheWrite);
  // USD per million tokens times tokens is micro-USD.
  const micro = fresh * price.input + tokens.cached * (price.cachedInput ?? price.input) + tokens.cacheWrite * (price.cacheWrite ?? price.input) + tokens.output * price.output;
  return Math.ceil(micro - 1e-9);
}
