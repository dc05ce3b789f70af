/**
 * Hand-made, deterministic tables of about `rows` rows for every chart builder that takes a table (the
 * shapes of bench/plot-scale.mjs): trades, a long yield-curve table (3 currencies × N dates × 20
 * maturities), a maturity × strike cross-check and vol grid, report infos over N days, position effects.
 */
import type { ColumnTable } from "../../src/table/column-table";
import { TableBuilder } from "../../src/table/column-table";

/** A deterministic stream of numbers in [0, 1). */
export function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
}

const DAY = 86_400_000;
const END = Date.UTC(2026, 10, 20);
const MATURITIES = [0.083, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 25, 30, 40, 50];
const CURRENCIES = ["USD", "EUR", "GBP"];
const STATUSES = ["none", "running", "succeeded", "warning", "failed", "queued"];
const COUNTERPARTIES = ["JPM", "GS", "MS", "BARC", "DB", "UBS", "CITI", "BNP", "HSBC", "SG", null];
const ASSET_CLASSES = ["Bond", "Equity", "Future", "Swap"];

export interface ScaleTables {
  trades: ColumnTable;
  curves: ColumnTable;
  grid: ColumnTable;
  reports: ColumnTable;
  effects: ColumnTable;
}

function build(source: string, columns: Record<string, unknown[]>): ColumnTable {
  const n = Object.values(columns)[0]!.length;
  const b = new TableBuilder(n, source);
  for (const [name, values] of Object.entries(columns)) b.add(name, values, { owned: true });
  return b.build();
}

/** Trades: unique trade ids, 10 counterparties (and some none), 5 currencies, about rows/20 instruments over a year. */
function trades(rows: number, r: () => number): ColumnTable {
  const instruments = Math.max(5, Math.round(rows / 20));
  const c: Record<string, unknown[]> = {
    trade_id: [],
    counterparty: [],
    currency: [],
    instrument_name: [],
    tradable_id: [],
    asset_class: [],
  };
  Object.assign(c, { notional: [], quantity: [], trade_date: [] });
  for (let k = 0; k < rows; k++) {
    const inst = Math.floor(r() ** 2 * instruments);
    const quantity = Math.round((r() - 0.4) * 1000);
    c.trade_id!.push(`T${String(k).padStart(7, "0")}`);
    c.counterparty!.push(COUNTERPARTIES[Math.floor(r() * COUNTERPARTIES.length)]);
    c.currency!.push(["USD", "EUR", "GBP", "JPY", "CHF"][inst % 5]);
    c.instrument_name!.push(`INST ${inst}`);
    c.tradable_id!.push(`ID${inst}`);
    c.asset_class!.push(ASSET_CLASSES[inst % 4]);
    c.notional!.push(k % 211 === 7 ? NaN : quantity * (50 + 100 * r()));
    c.quantity!.push(quantity);
    c.trade_date!.push(new Date(END - Math.floor(r() * 365) * DAY));
  }
  return build("GetTransactionTable", c);
}

function curves(rows: number, r: () => number): ColumnTable {
  const dates = Math.max(1, Math.round(rows / (CURRENCIES.length * MATURITIES.length)));
  const c: Record<string, unknown[]> = { currency: [], market_date: [], maturity: [], rate: [] };
  for (let d = 0; d < dates; d++)
    for (const [k, ccy] of CURRENCIES.entries())
      for (const m of MATURITIES) {
        c.currency!.push(ccy);
        c.market_date!.push(new Date(END - (dates - 1 - d) * DAY));
        c.maturity!.push(m);
        c.rate!.push(0.02 + k * 0.005 + (0.01 * Math.log1p(m)) / 4 + (r() - 0.5) * 0.002);
      }
  return build("RateAsset", c);
}

function grid(rows: number, r: () => number): ColumnTable {
  const strikes = 20;
  const maturities = Math.max(1, Math.round(rows / strikes));
  const c: Record<string, unknown[]> = {
    maturity: [],
    strike: [],
    vol: [],
    service_vol: [],
    local_vol: [],
    difference: [],
    error: [],
  };
  for (let i = 0; i < maturities; i++)
    for (let j = 0; j < strikes; j++) {
      const local = 0.2 + (0.1 * Math.abs(j - 10)) / 10 + 0.02 * Math.sqrt(i / maturities);
      const failed = i % 97 === 5;
      const diff = failed ? NaN : (r() - 0.5) * 4e-8;
      c.maturity!.push(7 + i);
      c.strike!.push(60 + 5 * j);
      c.vol!.push(local);
      c.local_vol!.push(local);
      c.service_vol!.push(failed ? NaN : local + diff);
      c.difference!.push(diff);
      c.error!.push(failed ? "no vol for this maturity" : null);
    }
  return build("GetVol", c);
}

function reports(rows: number, r: () => number): ColumnTable {
  const days = Math.max(1, Math.round(rows / 50));
  const c: Record<string, unknown[]> = { status: [], pricing_date: [] };
  for (let k = 0; k < rows; k++) {
    c.status!.push(k % 101 === 3 ? null : STATUSES[Math.floor(r() * STATUSES.length)]);
    c.pricing_date!.push(new Date(END - Math.floor(r() * days) * DAY));
  }
  return build("GetReportInfos", c);
}

function effects(rows: number, r: () => number): ColumnTable {
  const ids = ["SPX.XCBO", "SX5E.XEUR", "USD", "EUR", "US10Y", "DE10Y", "NKY.XOSE", "GBP"];
  const c: Record<string, unknown[]> = { contract_identifier: [], quantity: [] };
  for (let k = 0; k < rows; k++) {
    c.contract_identifier!.push(ids[k % ids.length]);
    c.quantity!.push(Math.round((r() - 0.5) * 200));
  }
  return build("GetTradeEventPositionEffects", c);
}

/** Every table at about `rows` rows, from `seed`. */
export function scaleTables(rows: number, seed = 29): ScaleTables {
  const r = random(seed);
  return {
    trades: trades(rows, r),
    curves: curves(rows, r),
    grid: grid(rows, r),
    reports: reports(rows, r),
    effects: effects(rows, r),
  };
}
