/**
 * What the simulator answers: one method per operation, each taking the request as the shared wire
 * schema parsed it and returning the response body. Semantics follow the spec and the wire assumptions
 * (A18 best effort, A19 bootstrap, A10 report lifecycle, A13 transaction rows).
 */
import { LOOK_BACK_PERIODS, shortTypeName, typeName, TYPE_NAMES } from "../api/assumptions";
import type { z } from "zod";
import type { uploadBondPriceDataRequest, uploadEquityVolCurvesRequest } from "../api/market-data";
import type { transactionTableRequest } from "../api/position";
import type { rateAssetRequest } from "../api/rate-asset";
import type { getReportInfosRequest } from "../api/report";
import type { riskLauncherItemCreateRequest, varLauncherItemCreateRequest } from "../api/report-launcher";
import type { getVolRequest, positionEffectsRequest } from "../api/tradable";
import { fromSurface } from "../vol";
import { VolModelError } from "../vol/errors";
import { addBusinessDays, previousBusinessDay, utcDateOf, wireDate } from "./calendar";
import type { Clock } from "./clock";
import { CURRENCIES, CurveBook, type BondCurveOverride } from "./data/curves";
import { portfolios as makePortfolios, TransactionBook, type Portfolio, type TransactionRow } from "./data/portfolios";
import { DEFAULT_REPORT_TIMING, definitions, historicalInfos, launchedInfo, MARKET_DATA_ENVIRONMENTS, type ReportDefinition, type ReportInfoOut, type ReportTiming } from "./data/reports";
import { Universe, yieldToMaturity, type Tradable } from "./data/universe";
import type { Store } from "./store";
import { round } from "./round";

type Out<S extends z.ZodType> = z.output<S>;

/** A failure the router turns into problem details with this status. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly title?: string,
  ) {
    super(message);
  }
}

export interface ServiceOptions {
  seed: number;
  /** Last business day of the data window (`YYYY-MM-DD`). */
  asOf: string;
  /** Business days of curve history before `asOf`. Default 520 (two years). */
  historyDays: number;
  /** Rows per portfolio transaction table. */
  transactionRows: number;
  /** Business days of historical report infos. */
  reportDays: number;
  reportTiming: ReportTiming;
  typeNamespace: string;
}

export class SimService {
  readonly universe: Universe;
  readonly curves: CurveBook;
  readonly portfolios: Portfolio[];
  readonly transactions: TransactionBook;
  readonly definitions: ReportDefinition[];
  readonly #history: ReportInfoOut[];
  readonly #timing: ReportTiming;

  constructor(
    readonly options: ServiceOptions,
    readonly store: Store,
    readonly clock: Clock,
    readonly apiKeys: { name: string; exposed_value: string; id: string }[],
  ) {
    const start = addBusinessDays(options.asOf, -(options.historyDays - 1));
    this.universe = new Universe(options.seed, options.asOf);
    this.curves = new CurveBook(options.seed, start, options.asOf);
    this.portfolios = makePortfolios(this.universe);
    this.transactions = new TransactionBook(options.seed, this.universe, start, options.asOf, options.transactionRows);
    this.definitions = definitions(this.portfolios);
    this.#history = historicalInfos(options.seed, this.definitions, options.asOf, options.reportDays);
    this.#timing = options.reportTiming ?? DEFAULT_REPORT_TIMING;
  }

  #type(name: string): string {
    return typeName(this.options.typeNamespace, name);
  }

  #outcome(name: string, messages: string[], success = messages.length === 0) {
    return { $type: this.#type(name), is_success: success, error_messages: messages };
  }

  // 1. UploadBondPriceData
  async uploadBondPriceData(req: Out<typeof uploadBondPriceDataRequest>) {
    const accepted: { index: number; record: (typeof req.bond_data)[number]; yieldRate: number }[] = [];
    const messages: string[] = [];
    req.bond_data.forEach((record, index) => {
      const why = this.#checkBondPrice(record);
      if (typeof why === "string") messages.push(`bond_data[${index}]: ${why}`);
      else accepted.push({ index, record, yieldRate: why.yieldRate });
    });
    // A18: all-or-nothing unless best effort.
    if (messages.length && !req.use_best_effort) return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, [...messages, `nothing was stored: ${messages.length} of ${req.bond_data.length} record(s) invalid and use_best_effort is false`]);
    await this.store.update((s) => {
      for (const { record } of accepted) {
        s.bondPrices.push({
          code: record.bond_identifier.code,
          market_identification_code: record.bond_identifier.market_identification_code,
          identifier_type: record.bond_identifier.identifier_type,
          date: record.date,
          currency: record.currency,
          traded_price: record.traded_price,
          is_percentage_of_par: record.is_percentage_of_par,
          is_currency_per_bond_unit: record.is_currency_per_bond_unit,
          bootstrapped: req.trigger_immediate_bootstrap,
        });
      }
    });
    return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, messages);
  }

  #checkBondPrice(r: Out<typeof uploadBondPriceDataRequest>["bond_data"][number]): string | { yieldRate: number } {
    const bond = this.universe.bond(r.bond_identifier.code);
    if (!bond) return `unknown bond ${JSON.stringify(r.bond_identifier.code)} (${r.bond_identifier.identifier_type}); known: ${this.universe.bonds.map((b) => b.id).join(", ")}`;
    if (r.currency !== bond.currency) return `currency ${r.currency} does not match the bond's currency ${bond.currency}`;
    if (!r.is_percentage_of_par) return "only prices in percent of par are supported (is_percentage_of_par must be true)";
    if (!(r.traded_price > 0 && r.traded_price < 1000)) return `traded_price ${r.traded_price} is not a plausible percent-of-par price`;
    const day = utcDateOf(r.date);
    if (day > this.options.asOf) return `date ${day} is after the latest market date ${this.options.asOf}`;
    if (day >= bond.maturity) return `date ${day} is on or after the bond's maturity ${bond.maturity}`;
    return { yieldRate: yieldToMaturity(bond, day, r.traded_price) };
  }

  // 2. UploadEquityVolCurves
  async uploadEquityVolCurves(req: Out<typeof uploadEquityVolCurvesRequest>) {
    const messages: string[] = [];
    const accepted: (typeof req.equity_vol_curves)[number][] = [];
    req.equity_vol_curves.forEach((curve, index) => {
      const eq = this.universe.equity(curve.asset_id.code, curve.asset_id.market_identification_code || undefined);
      const high = curve.vols.findIndex((v) => v > 5);
      if (!eq) messages.push(`equity_vol_curves[${index}]: unknown asset ${JSON.stringify(curve.asset_id.code)}; known: ${this.universe.equities.map((e) => e.code).join(", ")}`);
      else if (high >= 0) messages.push(`equity_vol_curves[${index}].vols[${high}]: ${curve.vols[high]} is not a plausible decimal vol (0.2 = 20%)`);
      else accepted.push(curve);
    });
    if (messages.length && !req.use_best_effort) return this.#outcome(TYPE_NAMES.uploadEquityVolCurvesResponse, [...messages, `nothing was stored: ${messages.length} of ${req.equity_vol_curves.length} curve(s) invalid and use_best_effort is false`]);
    await this.store.update((s) => {
      for (const c of accepted) {
        s.volCurves.push({ code: c.asset_id.code, market_identification_code: c.asset_id.market_identification_code, reference_date: c.reference_date, maturities: c.maturities, vols: c.vols, spot_ref: c.spot_ref });
      }
    });
    return this.#outcome(TYPE_NAMES.uploadEquityVolCurvesResponse, messages);
  }

  // 3. GetVol: the project's own vol model.
  getVol(req: Out<typeof getVolRequest>) {
    try {
      const vols = fromSurface(req.surface).vols(req.maturity, req.strikes, req.strike_type);
      return { vols: Array.from(vols), strike_type: req.strike_type };
    } catch (error) {
      if (error instanceof VolModelError) throw new SimError(400, error.message, "The vol surface or query is invalid");
      throw error;
    }
  }

  // 4. RateAsset
  rateAsset(req: Out<typeof rateAssetRequest>) {
    if (!this.curves.has(req.currency)) throw new SimError(404, `no discount curve for currency ${req.currency}; known: ${CURRENCIES.join(", ")}`);
    const requested = utcDateOf(req.market_date);
    const days = this.curves.days();
    if (requested < days[0]!) throw new SimError(404, `no curve before ${days[0]} (requested ${requested})`);
    // The latest curve on or before the requested date (a weekend or a future date gets the last close).
    const day = requested > this.curves.latestDate ? this.curves.latestDate : previousBusinessDay(requested);
    return { $type: this.#type(TYPE_NAMES.discountCurveResponse), yield_curve_model: this.curves.curve(req.currency, day, this.#bondOverrides()) };
  }

  #bondOverrides(): BondCurveOverride[] {
    const out: BondCurveOverride[] = [];
    for (const p of this.store.data.bondPrices) {
      if (!p.bootstrapped) continue;
      const bond = this.universe.bond(p.code);
      if (!bond) continue;
      const day = previousBusinessDay(utcDateOf(p.date));
      out.push({ currency: bond.currency, date: day, name: `BOND ${bond.id}`, expiry: bond.maturity, yieldRate: yieldToMaturity(bond, day, p.traded_price) });
    }
    return out;
  }

  // 5. GetTradeEventPositionEffects
  positionEffects(req: Out<typeof positionEffectsRequest>) {
    const t = this.#tradable(req.tradable_id);
    const e = req.next_trade_event as Record<string, unknown> & { $type: string };
    const name = shortTypeName(e.$type);
    const q = Number(e.quantity ?? 0);
    const cash = t.currency;
    const effect = (identifier: string, quantity: number) => ({ quantity: round(quantity, 8), contract: { identifier } });
    let effects: { quantity: number; contract: { identifier: string } }[];
    switch (name) {
      case "BuyEvent":
        effects = [effect(t.id, q), effect(cash, -q * Number(e.unit_price) * contractSize(t))];
        break;
      case "SellEvent":
        effects = [effect(t.id, -q), effect(cash, q * Number(e.unit_price) * contractSize(t))];
        break;
      case "CouponEvent":
      case "DividendEvent":
        effects = [effect(cash, q * Number(e.amount_per_unit) * (t.kind === "bond" ? 0.01 : 1))];
        break;
      case "RedemptionEvent":
        effects = [effect(t.id, -q), effect(cash, q * Number(e.redemption_price) * 0.01)];
        break;
      case "ExpiryEvent":
        effects = [effect(t.id, -q)];
        break;
      case "ExerciseEvent": {
        const size = contractSize(t);
        effects = [effect(t.id, -q), effect(String(e.underlying_id), q * size), effect(cash, -q * size * Number(e.strike))];
        break;
      }
      case "StockSplitEvent":
        effects = [effect(t.id, q * (Number(e.ratio) - 1))];
        break;
      default:
        // An event variant the simulator does not model changes no position (A14: open union).
        effects = [];
    }
    return { position_effects: effects, pricing_date: wireDate(utcDateOf(req.pricing_date)) };
  }

  #tradable(id: string): Tradable {
    const t = this.universe.tradables.get(id);
    if (!t) throw new SimError(404, `No tradable with id '${id}'`, "Tradable not found");
    return t;
  }

  // 6. GetTradableBrief
  brief(tradableId: string) {
    const t = this.#tradable(tradableId);
    const extra: string[] = [];
    if (t.kind === "equity") {
      const uploaded = this.store.data.volCurves.filter((c) => c.code === t.code).at(-1);
      if (uploaded) extra.push(`Uploaded ATM vol curve of ${uploaded.reference_date.slice(0, 10)}: ${uploaded.maturities.map((m, i) => `${m}d ${(uploaded.vols[i]! * 100).toFixed(1)}%`).join(", ")}.`);
    }
    if (t.kind === "bond") {
      const last = this.store.data.bondPrices.filter((p) => p.code === t.id).at(-1);
      if (last) extra.push(`Last uploaded price ${last.traded_price} on ${last.date.slice(0, 10)}${last.bootstrapped ? " (in the curve)" : ""}.`);
    }
    return { brief: this.universe.brief(t, extra) };
  }

  // 7, 8. Launcher creates
  async launch(kind: "var" | "risk", req: Out<typeof varLauncherItemCreateRequest> | Out<typeof riskLauncherItemCreateRequest>) {
    const messages: string[] = [];
    const portfolio = this.portfolios.find((p) => p.name === req.portfolio_name);
    if (!portfolio) messages.push(`Portfolio '${req.portfolio_name}' not found; known: ${this.portfolios.map((p) => p.name).join(", ")}`);
    else if (portfolio.type !== req.portfolio_type) messages.push(`Portfolio '${req.portfolio_name}' is of type ${portfolio.type}, not ${req.portfolio_type}`);
    for (const env of req.market_data_environment_names) {
      if (!(MARKET_DATA_ENVIRONMENTS as readonly string[]).includes(env)) messages.push(`Unknown market data environment '${env}'; known: ${MARKET_DATA_ENVIRONMENTS.join(", ")}`);
    }
    const params = req.parameters as Record<string, unknown>;
    if (kind === "var" && !(LOOK_BACK_PERIODS as readonly string[]).includes(String(params.historical_look_back_period))) {
      messages.push(`Unknown historical_look_back_period '${String(params.historical_look_back_period)}'; known: ${LOOK_BACK_PERIODS.join(", ")}`);
    }
    if (messages.length) return this.#outcome(TYPE_NAMES.baseResponse, messages);
    await this.store.update((s) => {
      const id = `rep-l${String(s.nextReport++).padStart(6, "0")}`;
      s.reports.push({
        id,
        report_type: kind,
        report_name: req.report_name,
        portfolio_name: req.portfolio_name,
        portfolio_type: req.portfolio_type,
        reporting_currency: req.reporting_currency,
        market_data_environment_names: req.market_data_environment_names,
        pricing_date: wireDate(utcDateOf(String(params.run_date))),
        created_ms: this.clock.now(),
        parameters: params,
      });
    });
    return this.#outcome(TYPE_NAMES.baseResponse, []);
  }

  /** All report infos now: the history plus launched reports at the clock's time. */
  allReportInfos(): ReportInfoOut[] {
    const now = this.clock.now();
    return [...this.#history, ...this.store.data.reports.map((r) => launchedInfo(this.options.seed, r, now, this.#timing))];
  }

  // 9. GetReportInfos
  reportInfos(req: Out<typeof getReportInfosRequest>) {
    const dates = new Set([...(req.pricing_date ? [req.pricing_date] : []), ...(req.pricing_dates ?? [])].map(utcDateOf));
    const names = new Set(req.portfolio_names);
    const type = (req as Record<string, unknown>).portfolio_type as string | undefined;
    const report_infos = this.allReportInfos().filter(
      (i) => dates.has(i.pricing_date.slice(0, 10)) && (names.size === 0 || names.has(i.portfolio_name)) && (type === undefined || i.portfolio_type === type),
    );
    return { report_infos };
  }

  // 10. ReportInfos
  reportList() {
    return { report_infos: this.definitions.map((d) => ({ report_type: d.report_type, report_name: d.report_name })) };
  }

  // 11. LookBacks
  lookBacks() {
    return { look_backs: [...LOOK_BACK_PERIODS] };
  }

  // 12. GetTransactionTable: a lazy row source (the router streams it).
  transactionRows(req: Out<typeof transactionTableRequest>): Iterable<TransactionRow> {
    const p = this.portfolios.find((x) => x.name === req.portfolio_name);
    if (!p) throw new SimError(404, `Portfolio '${req.portfolio_name}' not found; known: ${this.portfolios.map((x) => x.name).join(", ")}`, "Portfolio not found");
    return this.transactions.select(p, {
      startDate: req.start_date ? utcDateOf(req.start_date) : undefined,
      endDate: req.end_date ? utcDateOf(req.end_date) : undefined,
      includeZeroQuantities: req.include_zero_quantities,
      counterparties: req.counterparties,
    });
  }

  // 13. ApiKeys
  listApiKeys() {
    return this.apiKeys;
  }

  /** The wire `surface` of an equity as the simulator prices it (uploaded ATM vols win), for notebooks. */
  surfaceOf(code: string) {
    const eq = this.universe.equity(code.split(".")[0]!);
    if (!eq) throw new SimError(404, `No equity '${code}'; known: ${this.universe.equities.map((e) => e.id).join(", ")}`);
    const uploaded = this.store.data.volCurves.filter((c) => c.code === eq.code).at(-1);
    const ccy = this.curves.has(eq.currency) ? eq.currency : "USD";
    return this.universe.surface(
      eq,
      (t) => this.curves.zero(ccy, this.curves.latestDate, t),
      uploaded ? (days) => interpolateFlat(uploaded.maturities, uploaded.vols, days) : undefined,
    );
  }
}

function contractSize(t: Tradable): number {
  return t.kind === "option" ? t.multiplier : t.kind === "bond" ? 0.01 : 1;
}

/** Linear interpolation in maturity, flat beyond the ends. */
function interpolateFlat(xs: number[], ys: number[], x: number): number {
  if (x <= xs[0]!) return ys[0]!;
  for (let i = 1; i < xs.length; i++) {
    if (x <= xs[i]!) {
      const w = (x - xs[i - 1]!) / (xs[i]! - xs[i - 1]!);
      return ys[i - 1]! + w * (ys[i]! - ys[i - 1]!);
    }
  }
  return ys.at(-1)!;
}
