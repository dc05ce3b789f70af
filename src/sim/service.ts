/**
 * What the simulator answers: one method per operation, each taking the request as the shared wire
 * schema parsed it and returning the response body. Semantics follow the spec and the wire assumptions
 * (A18 best effort, A19 bootstrap, A10 report lifecycle, A13 transaction rows).
 */
import {
  apiKeyTypeName,
  DEFAULT_BRAND,
  LOOK_BACK_PERIODS,
  SERVICE_DEFAULTS,
  shortTypeName,
  typeName,
  TRADED_PRICE,
  TYPE_NAMES,
} from "../api/assumptions";
import type { z } from "zod";
import type { uploadBondPriceDataRequest, uploadEquityVolCurvesRequest } from "../api/market-data";
import type { transactionTableRequest } from "../api/position";
import type { rateAssetRequest } from "../api/rate-asset";
import type { getReportInfosRequest } from "../api/report";
import type { riskLauncherItemCreateRequest, varLauncherItemCreateRequest } from "../api/report-launcher";
import { volSurface, type getVolRequest, type positionEffectsRequest } from "../api/tradable";
import type { FieldIssue } from "../api/operation";
import { fromSurface } from "../vol";
import { VolModelError } from "../vol/errors";
import { addBusinessDays, isoDate, previousBusinessDay, utcDateOf, wireDate, yearFraction } from "./calendar";
import type { Clock } from "./clock";
import { CURRENCIES, CurveBook, type BondCurveOverride } from "./data/curves";
import { portfolios as makePortfolios, TransactionBook, type Portfolio, type TransactionRow } from "./data/portfolios";
import {
  DEFAULT_REPORT_TIMING,
  definitions,
  historicalInfos,
  launchedInfo,
  MARKET_DATA_ENVIRONMENTS,
  runOf,
  scheduledRuns,
  type LaunchedReport,
  type ReportDefinition,
  type ReportInfoOut,
  type ReportTiming,
  type SavedLauncherItem,
} from "./data/reports";
import { accruedInterest, Universe, yieldToMaturity, type Tradable } from "./data/universe";
import type { Change, Store, StoredBondPrice, StoredVolCurve } from "./store";
import { round } from "./round";
import { linearAt } from "../curves/linear";

type Out<S extends z.ZodType> = z.output<S>;

/** A failure the router turns into problem details with this status (and `errors` by field path, when given). */
export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly title?: string,
    readonly issues?: readonly FieldIssue[],
  ) {
    super(message);
  }
}

/** Bond uploads: how many stored prices the answer's bootstrap notes describe, one each. */
const MAX_BOOTSTRAP_NOTES = 20;

/** The request field path of a vol model error: `surface.vols[0]`, `strikes[3]`, `maturity`. */
export function volErrorPath(error: VolModelError): string {
  const field = error.field ?? "surface";
  // A field of GetVol's surface (its schema's): the error names `surface.<field>[<benchmark>]`.
  if (Object.hasOwn(volSurface.shape, field))
    return `surface.${field}${error.benchmark === undefined ? "" : `[${error.benchmark}]`}`;
  // Query fields: the message names the element (`strikes[3] must be …`) when there is one.
  const element = new RegExp(`^${field}\\[(\\d+)\\]`).exec(error.message);
  return element ? `${field}[${element[1]}]` : field;
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
  /**
   * A19: time between an upload with `trigger_immediate_bootstrap` and the moment its prices are in the
   * curves ("those refreshes need not finish before this response"), ms of the simulator's clock.
   */
  bootstrapLagMs: number;
  /** The brand's name (its own provider is read-only for uploads, as on the pages). */
  brand: string;
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
    // Indexes beside the state: built once from what the store holds, then kept up to date change by change.
    this.#index({ kind: "bondPrices", records: store.data.bondPrices });
    this.#index({ kind: "volCurves", curves: store.data.volCurves });
    for (const item of store.data.launcherItems) this.#index({ kind: "launcherItem", item, nextItem: 0 });
    this.#index({ kind: "reports", runs: store.data.reports, nextReport: 0 });
    store.onChange((change) => this.#index(change));
  }

  /**
   * Bond prices in the curves, by `currency/day` then bond: of the bond's bootstrapped prices of that day,
   * the one stored last wins (by its place in the store, not by when its bootstrap finished, so that a
   * restart gives the same curve). Its curve point (a yield solved from the price) is worked out the first
   * time a curve needs it.
   */
  readonly #inCurves = new Map<
    string,
    Map<string, { seq: number; price: StoredBondPrice; point?: BondCurveOverride }>
  >();
  /** Bootstrapped prices whose bootstrap has not finished yet (A19), by the time it does. */
  readonly #pending: { atMs: number; seq: number; price: StoredBondPrice }[] = [];
  /** Prices seen: the place in the store of the next one. */
  #pricesSeen = 0;
  /** The curve day of each price date seen (see {@link #curveDayOf}). */
  readonly #curveDays = new Map<string, string>();
  /** The last uploaded price of each bond and the last uploaded ATM vol curve of each equity. */
  readonly #lastPrice = new Map<string, StoredBondPrice>();
  readonly #lastVolCurve = new Map<string, StoredVolCurve>();
  /** Ids of the saved launcher items; report runs started on request by pricing day, in the store's order. */
  readonly #itemIds = new Set<string>();
  readonly #runsByDay = new Map<string, { seq: number; run: LaunchedReport }[]>();
  #runsSeen = 0;
  /** Stored prices indexed, and curve points solved from them: once each, however often the curves are read. */
  readonly stats = { pricesIndexed: 0, pointsDerived: 0 };

  #index(change: Change): void {
    switch (change.kind) {
      case "volCurves":
        for (const c of change.curves) this.#lastVolCurve.set(c.code, c);
        return;
      case "launcherItem":
        this.#itemIds.add(change.item.id);
        return;
      case "reports":
        for (const run of change.runs) {
          const day = run.pricing_date.slice(0, 10);
          let runs = this.#runsByDay.get(day);
          if (!runs) this.#runsByDay.set(day, (runs = []));
          runs.push({ seq: this.#runsSeen++, run });
        }
        return;
      case "bondPrices": {
        const now = this.clock.now();
        for (const price of change.records) {
          const seq = this.#pricesSeen++;
          this.#lastPrice.set(price.code, price);
          if (!price.bootstrapped) continue;
          if (price.bootstrapped_at_ms === undefined || price.bootstrapped_at_ms <= now) this.#enterCurve(price, seq);
          else insertByTime(this.#pending, { atMs: price.bootstrapped_at_ms, seq, price });
        }
      }
    }
  }

  /** Moves the prices whose bootstrap has finished by now into the curves. */
  #settle(): void {
    const now = this.clock.now();
    let done = 0;
    for (; done < this.#pending.length && this.#pending[done]!.atMs <= now; done++)
      this.#enterCurve(this.#pending[done]!.price, this.#pending[done]!.seq);
    if (done) this.#pending.splice(0, done);
  }

  #enterCurve(price: StoredBondPrice, seq: number): void {
    const bond = this.universe.bond(price.code);
    if (!bond) return;
    const day = this.#curveDayOf(price.date);
    const key = `${bond.currency}/${day}`;
    let bonds = this.#inCurves.get(key);
    if (!bonds) this.#inCurves.set(key, (bonds = new Map()));
    this.stats.pricesIndexed++;
    // A price stored earlier whose bootstrap finished later (a clock set back, a restart with another lag) does not win.
    if ((bonds.get(bond.id)?.seq ?? -1) < seq) bonds.set(bond.id, { seq, price });
  }

  /** The curve day of a price's date (its business day), remembered: hundreds of thousands of prices share a few hundred dates. */
  #curveDayOf(date: string): string {
    let day = this.#curveDays.get(date);
    if (day === undefined) {
      // Dates with times of day can all differ: the memory stays small whatever comes.
      if (this.#curveDays.size >= 10_000) this.#curveDays.clear();
      this.#curveDays.set(date, (day = previousBusinessDay(utcDateOf(date))));
    }
    return day;
  }

  /** Every answer is built in the neutral spelling; the HTTP layer spells it in the brand. */
  #type(name: string): string {
    return typeName(DEFAULT_BRAND, name);
  }

  #envelope(name: string) {
    return { $type: this.#type(name), is_success: true, error_messages: [] as string[] };
  }

  /**
   * The market-data selectors of a request: a known environment, or a provider other than the brand's own
   * (read-only for uploads: "a non-Derivitec provider that the caller may edit"). The simulator has one
   * set of market data: a valid selector changes nothing else. Returns the messages of what is wrong.
   */
  #checkSelectors(
    req: {
      market_data_environment_name?: string | null;
      market_data_environment_names?: string[] | null;
      provider_id?: string | null;
    },
    upload: boolean,
  ): string[] {
    const messages: string[] = [];
    for (const env of [req.market_data_environment_name, ...(req.market_data_environment_names ?? [])]) {
      if (env && !(MARKET_DATA_ENVIRONMENTS as readonly string[]).includes(env))
        messages.push(`Unknown market data environment '${env}'; known: ${MARKET_DATA_ENVIRONMENTS.join(", ")}`);
    }
    if (
      upload &&
      req.provider_id &&
      [this.options.brand, DEFAULT_BRAND].some((b) => b.toLowerCase() === req.provider_id!.trim().toLowerCase())
    ) {
      messages.push(
        `provider_id '${req.provider_id}': the ${this.options.brand} provider is read-only; upload to a provider you may edit`,
      );
    }
    return messages;
  }

  #outcome(name: string, messages: string[], success = messages.length === 0) {
    return { $type: this.#type(name), is_success: success, error_messages: messages };
  }

  // 1. UploadBondPriceData
  async uploadBondPriceData(req: Out<typeof uploadBondPriceDataRequest>) {
    const refused = this.#checkSelectors(req, true);
    if (refused.length) return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, [...refused, "nothing was stored"]);
    const bestEffort = req.use_best_effort ?? SERVICE_DEFAULTS.use_best_effort;
    const bootstrap = req.trigger_immediate_bootstrap ?? SERVICE_DEFAULTS.trigger_immediate_bootstrap;
    const accepted: { index: number; record: (typeof req.bond_data)[number] }[] = [];
    const messages: string[] = [];
    req.bond_data.forEach((record, index) => {
      const why = this.#checkBondPrice(record);
      if (why) messages.push(`bond_data[${index}]: ${why}`);
      else accepted.push({ index, record });
    });
    // A18: all-or-nothing unless best effort.
    if (messages.length && !bestEffort)
      return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, [
        ...messages,
        `nothing was stored: ${messages.length} of ${req.bond_data.length} record(s) invalid and use_best_effort is false`,
      ]);
    const bootstrappedAt = this.clock.now() + this.options.bootstrapLagMs;
    await this.store.update(() => ({
      kind: "bondPrices",
      records: accepted.map(({ record }) => ({
        code: record.bond_identifier.code,
        market_identification_code: record.bond_identifier.market_identification_code ?? "",
        identifier_type: record.bond_identifier.identifier_type ?? SERVICE_DEFAULTS.identifier_type,
        date: record.date,
        currency: record.currency,
        traded_price: record.traded_price,
        is_percentage_of_par: record.is_percentage_of_par,
        is_currency_per_bond_unit: record.is_currency_per_bond_unit,
        bootstrapped: bootstrap,
        ...(bootstrap ? { bootstrapped_at_ms: bootstrappedAt } : {}),
        ...(req.market_data_environment_name ? { market_data_environment_name: req.market_data_environment_name } : {}),
        ...(req.provider_id ? { provider_id: req.provider_id } : {}),
      })),
    }));
    // A partial answer's messages each name a rejected record (that is how a client tells what was
    // stored): the notes of what the bootstrap does come only with an answer that stored everything.
    if (messages.length === 0 && bootstrap)
      return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, this.#bootstrapNotes(accepted), true);
    return this.#outcome(TYPE_NAMES.uploadBondPriceResponse, messages);
  }

  /**
   * What the bootstrap does with each stored price, said in the upload's answer (`is_success` stays true):
   * the pillar it replaces in which curve, by the rule the curves follow (a bond replaces the swap pillars
   * within six months of its maturity, BOND_REPLACES_SWAPS_WITHIN_YEARS), and the yield it becomes with
   * `traded_price` read as a clean price ({@link TRADED_PRICE}). The first
   * {@link MAX_BOOTSTRAP_NOTES} prices only: a big upload's answer stays small and quick.
   */
  #bootstrapNotes(accepted: { record: Out<typeof uploadBondPriceDataRequest>["bond_data"][number] }[]): string[] {
    const notes = accepted.slice(0, MAX_BOOTSTRAP_NOTES).map(({ record }) => {
      const bond = this.universe.bond(record.bond_identifier.code)!;
      const day = previousBusinessDay(utcDateOf(record.date));
      const years = `${yearFraction(day, bond.maturity).toFixed(1)}Y`;
      const replaced = this.curves.has(bond.currency)
        ? this.curves.replacedPillars(bond.currency, day, bond.maturity)
        : undefined;
      if (replaced === undefined)
        return `note: bond ${bond.id} (${years}): no ${bond.currency} curve on ${day}, so the price enters no curve`;
      // As the curve works it out (#bondOverrides): on the curve's day.
      const yieldPct = (yieldToMaturity(bond, day, record.traded_price) * 100).toFixed(3);
      const how = `yield ${yieldPct}% from traded_price ${record.traded_price} read as a ${TRADED_PRICE.basis} price + accrued ${accruedInterest(bond, day).toFixed(3)}`;
      const curve = `the ${bond.currency} curve of ${day}`;
      return replaced.length
        ? `note: bond ${bond.id} (${years}) replaces pillar${replaced.length > 1 ? "s" : ""} ${replaced.join(", ")} in ${curve} (rule: a bond replaces the swap pillars within six months of its maturity); ${how}`
        : `note: bond ${bond.id} (${years}) adds a pillar to ${curve}, replacing none (no swap pillar within six months of its maturity); ${how}`;
    });
    if (accepted.length > MAX_BOOTSTRAP_NOTES)
      notes.push(`note: and ${accepted.length - MAX_BOOTSTRAP_NOTES} more prices enter curves by the same rule`);
    return notes;
  }

  /** Why a bond price cannot be stored, or undefined when it can (its yield is worked out when a curve needs it). */
  #checkBondPrice(r: Out<typeof uploadBondPriceDataRequest>["bond_data"][number]): string | undefined {
    const bond = this.universe.bond(r.bond_identifier.code);
    if (!bond)
      return `unknown bond ${JSON.stringify(r.bond_identifier.code)} (${r.bond_identifier.identifier_type ?? SERVICE_DEFAULTS.identifier_type}); known: ${this.universe.bonds.map((b) => b.id).join(", ")}`;
    if (r.currency !== bond.currency)
      return `currency ${r.currency} does not match the bond's currency ${bond.currency}`;
    if (!r.is_percentage_of_par)
      return "only prices in percent of par are supported (is_percentage_of_par must be true)";
    if (!(r.traded_price > 0 && r.traded_price < 1000))
      return `traded_price ${r.traded_price} is not a plausible percent-of-par price`;
    const day = utcDateOf(r.date);
    if (day > this.options.asOf) return `date ${day} is after the latest market date ${this.options.asOf}`;
    if (day >= bond.maturity) return `date ${day} is on or after the bond's maturity ${bond.maturity}`;
    return undefined;
  }

  // 2. UploadEquityVolCurves
  async uploadEquityVolCurves(req: Out<typeof uploadEquityVolCurvesRequest>) {
    const refused = this.#checkSelectors(req, true);
    if (refused.length)
      return this.#outcome(TYPE_NAMES.uploadEquityVolCurvesResponse, [...refused, "nothing was stored"]);
    const messages: string[] = [];
    const accepted: (typeof req.equity_vol_curves)[number][] = [];
    req.equity_vol_curves.forEach((curve, index) => {
      const eq = this.universe.equity(curve.asset_id.code, curve.asset_id.market_identification_code || undefined);
      const high = curve.vols.findIndex((v) => v > 5);
      if (!eq)
        messages.push(
          `equity_vol_curves[${index}]: unknown asset ${JSON.stringify(curve.asset_id.code)}; known: ${this.universe.equities.map((e) => e.code).join(", ")}`,
        );
      else if (high >= 0)
        messages.push(
          `equity_vol_curves[${index}].vols[${high}]: ${curve.vols[high]} is not a plausible decimal vol (0.2 = 20%)`,
        );
      else accepted.push(curve);
    });
    if (messages.length && !(req.use_best_effort ?? SERVICE_DEFAULTS.use_best_effort))
      return this.#outcome(TYPE_NAMES.uploadEquityVolCurvesResponse, [
        ...messages,
        `nothing was stored: ${messages.length} of ${req.equity_vol_curves.length} curve(s) invalid and use_best_effort is false`,
      ]);
    await this.store.update(() => ({
      kind: "volCurves",
      curves: accepted.map((c) => ({
        code: c.asset_id.code,
        market_identification_code: c.asset_id.market_identification_code ?? "",
        reference_date: c.reference_date,
        maturities: c.maturities,
        vols: c.vols,
        ...(c.spot_ref === undefined ? {} : { spot_ref: c.spot_ref }),
      })),
    }));
    return this.#outcome(TYPE_NAMES.uploadEquityVolCurvesResponse, messages);
  }

  // 3. GetVol: the project's own vol model.
  getVol(req: Out<typeof getVolRequest>) {
    try {
      const strikeType = req.strike_type ?? SERVICE_DEFAULTS.strike_type;
      const vols = fromSurface(req.surface).vols(req.maturity, req.strikes, strikeType);
      return { vols: Array.from(vols), strike_type: strikeType };
    } catch (error) {
      if (error instanceof VolModelError) {
        const path = volErrorPath(error);
        throw new SimError(400, `${path}: ${error.message}`, "The vol surface or query is invalid", [
          { path, message: error.message },
        ]);
      }
      throw error;
    }
  }

  // 4. RateAsset
  rateAsset(req: Out<typeof rateAssetRequest>) {
    const refused = this.#checkSelectors(req, false);
    if (refused.length) throw new SimError(404, refused.join("; "), "Market data not found");
    if (!this.curves.has(req.currency))
      throw new SimError(404, `no discount curve for currency ${req.currency}; known: ${CURRENCIES.join(", ")}`);
    // A22: no market date → the latest available one. A23, the simulator's rule for a date without data:
    // the latest curve on or before it, its `market_date` saying which (a weekend gets Friday's, a date
    // after the data the last day's; there are no holidays: every Monday to Friday has a curve); before
    // the first curve, 404. The pages do not say what the service does (README "The simulator").
    const requested = req.market_date ? utcDateOf(req.market_date) : this.curves.latestDate;
    const days = this.curves.days();
    if (requested < days[0]!) throw new SimError(404, `no curve before ${days[0]} (requested ${requested})`);
    const day = requested > this.curves.latestDate ? this.curves.latestDate : previousBusinessDay(requested);
    return {
      $type: this.#type(TYPE_NAMES.discountCurveResponse),
      yield_curve_model: this.curves.curve(req.currency, day, this.#bondOverrides(req.currency, day)),
    };
  }

  /** The bond points in the curve of `currency` on `day` (A19: only bootstraps finished by now). */
  #bondOverrides(currency: string, day: string): BondCurveOverride[] {
    this.#settle();
    const bonds = this.#inCurves.get(`${currency}/${day}`);
    if (!bonds) return [];
    return [...bonds.values()].map((entry) => {
      if (!entry.point) {
        const bond = this.universe.bond(entry.price.code)!;
        entry.point = {
          currency: bond.currency,
          date: day,
          name: `BOND ${bond.id}`,
          expiry: bond.maturity,
          yieldRate: yieldToMaturity(bond, day, entry.price.traded_price),
        };
        this.stats.pointsDerived++;
      }
      return entry.point;
    });
  }

  // 5. GetTradeEventPositionEffects
  positionEffects(req: Out<typeof positionEffectsRequest>) {
    const t = this.#tradable(req.tradable_id);
    const e = req.next_trade_event as Record<string, unknown> & { $type: string };
    const name = shortTypeName(e.$type);
    // A14: the published BuyEvent carries `unit_price` alone: one unit.
    const q = Number(e.quantity ?? (name === "BuyEvent" ? 1 : 0));
    const cash = t.currency;
    const effect = (identifier: string, quantity: number) => {
      // A product past double precision (1e308 units at 190) is the request's fault, not a null on the wire.
      if (!Number.isFinite(quantity)) {
        const message = `the effect on ${identifier} is ${quantity} (outside double precision): quantity and price are too large together`;
        throw new SimError(400, `next_trade_event: ${message}`, "The trade event cannot be applied", [
          { path: "next_trade_event", message },
        ]);
      }
      return { quantity: round(quantity, 8), contract: { identifier } };
    };
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
        effects = [
          effect(t.id, -q),
          effect(String(e.underlying_id), q * size),
          effect(cash, -q * size * Number(e.strike)),
        ];
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
      const uploaded = this.#lastVolCurve.get(t.code);
      if (uploaded)
        extra.push(
          `Uploaded ATM vol curve of ${uploaded.reference_date.slice(0, 10)}: ${uploaded.maturities.map((m, i) => `${m}d ${(uploaded.vols[i]! * 100).toFixed(1)}%`).join(", ")}.`,
        );
    }
    if (t.kind === "bond") {
      const last = this.#lastPrice.get(t.id);
      const inCurve =
        last?.bootstrapped && (last.bootstrapped_at_ms === undefined || this.clock.now() >= last.bootstrapped_at_ms);
      if (last)
        extra.push(
          `Last uploaded price ${last.traded_price} on ${last.date.slice(0, 10)}${inCurve ? " (in the curve)" : last.bootstrapped ? " (bootstrap in progress)" : ""}.`,
        );
    }
    return { ...this.#envelope(TYPE_NAMES.tradableBriefResponse), brief: this.universe.brief(t, extra) };
  }

  // 7, 8. Launcher creates: save an item, run nothing (A21).
  async launch(
    kind: "var" | "risk",
    req: Out<typeof varLauncherItemCreateRequest> | Out<typeof riskLauncherItemCreateRequest>,
  ) {
    const messages: string[] = [];
    const candidates = this.portfolios.filter((p) => p.name === req.portfolio_name);
    const portfolio = req.portfolio_type ? candidates.find((p) => p.type === req.portfolio_type) : candidates[0];
    if (!candidates.length)
      messages.push(
        `Portfolio '${req.portfolio_name}' not found; known: ${this.portfolios.map((p) => p.name).join(", ")}`,
      );
    else if (!portfolio)
      messages.push(`Portfolio '${req.portfolio_name}' is of type ${candidates[0]!.type}, not ${req.portfolio_type}`);
    const reportType = kind === "var" ? "var" : "risk";
    const definition = this.definitions.find((d) => d.report_type === reportType && d.report_name === req.report_name);
    if (!definition) {
      const known = this.definitions
        .filter((d) => d.report_type === reportType && (!portfolio || d.portfolio === portfolio))
        .map((d) => d.report_name);
      messages.push(
        `Report '${req.report_name}' is not a ${kind === "var" ? "VaR" : "risk"} report definition you can use; known: ${known.join(", ")}`,
      );
    }
    messages.push(...this.#checkSelectors(req, false));
    const members = Object.fromEntries(
      Object.entries(req).filter(([k, v]) => v !== undefined && v !== null && !LAUNCHER_COMMON_FIELDS.has(k)),
    );
    const lookBack = members.historical_look_back_period;
    if (lookBack !== undefined && !(LOOK_BACK_PERIODS as readonly string[]).includes(String(lookBack))) {
      messages.push(
        `Unknown historical_look_back_period '${String(lookBack)}'; known: ${LOOK_BACK_PERIODS.join(", ")}`,
      );
    }
    if (req.id && this.#itemIds.has(req.id)) messages.push(`A saved launcher item with id '${req.id}' exists already`);
    if (messages.length) return this.#outcome(TYPE_NAMES.baseResponse, messages);
    await this.store.update((s) => {
      const item: SavedLauncherItem = {
        id: req.id ?? `item-${String(s.nextItem).padStart(6, "0")}`,
        report_type: reportType,
        report_name: req.report_name,
        report_definition_id: definition!.id,
        portfolio_name: portfolio!.name,
        portfolio_type: portfolio!.type,
        reporting_currency: req.reporting_currency ?? SERVICE_DEFAULTS.reporting_currency,
        market_data_environment_names: req.market_data_environment_names ?? [],
        members,
        created_ms: this.clock.now(),
      };
      return { kind: "launcherItem", item, nextItem: req.id ? s.nextItem : s.nextItem + 1 };
    });
    return this.#outcome(TYPE_NAMES.baseResponse, []);
  }

  /**
   * Simulator only (`POST /sim/batch`): runs every saved launcher item now, as the daily batch would, and
   * returns the new runs. A run prices `run_date` (the day of the clock with `run_date_is_today`), else the
   * data's last day.
   */
  async runBatch(): Promise<{
    runs: { id: string; item_id: string; report_name: string; portfolio_name: string; pricing_date: string }[];
  }> {
    const now = this.clock.now();
    const started: LaunchedReport[] = [];
    await this.store.update((s) => {
      let next = s.nextReport;
      for (const item of s.launcherItems) {
        const runDate = item.members.run_date;
        const day = item.members.run_date_is_today
          ? isoDate(now)
          : typeof runDate === "string"
            ? utcDateOf(runDate)
            : this.options.asOf;
        started.push(runOf(item, `rep-l${String(next++).padStart(6, "0")}`, now, day, "batch"));
      }
      return { kind: "reports", runs: started, nextReport: next };
    });
    return {
      runs: started.map((r) => ({
        id: r.id,
        item_id: r.item_id!,
        report_name: r.report_name,
        portfolio_name: r.portfolio_name,
        pricing_date: r.pricing_date,
      })),
    };
  }

  /**
   * Report infos now: the history, the runs started on request and the daily batch's runs, at the clock's
   * time; with `days`, only those of these pricing days (the runs of other days are not even made).
   */
  allReportInfos(days?: ReadonlySet<string>): ReportInfoOut[] {
    const now = this.clock.now();
    const requested = days
      ? [...days]
          .flatMap((day) => this.#runsByDay.get(day) ?? [])
          .sort((a, b) => a.seq - b.seq)
          .map((entry) => entry.run)
      : this.store.data.reports;
    const runs = [...requested, ...scheduledRuns(this.options.seed, this.store.data.launcherItems ?? [], now, days)];
    const history = days ? this.#history.filter((i) => days.has(i.pricing_date.slice(0, 10))) : this.#history;
    return [...history, ...runs.map((r) => launchedInfo(this.options.seed, r, now, this.#timing))];
  }

  // 9. GetReportInfos: the newer singular selectors and the older plural ones (A11, A16).
  reportInfos(req: Out<typeof getReportInfosRequest>) {
    const dates = new Set(
      [...(req.pricing_date ? [req.pricing_date] : []), ...(req.pricing_dates ?? [])].map(utcDateOf),
    );
    const names = new Set([...(req.portfolio_name ? [req.portfolio_name] : []), ...(req.portfolio_names ?? [])]);
    const report_infos = this.allReportInfos(dates).filter(
      (i) =>
        dates.has(i.pricing_date.slice(0, 10)) &&
        (names.size === 0 || names.has(i.portfolio_name)) &&
        (!req.portfolio_type || i.portfolio_type === req.portfolio_type) &&
        (!req.report_name || i.report_name === req.report_name) &&
        (!req.reporting_currency || i.reporting_currency === req.reporting_currency),
    );
    return { report_infos };
  }

  // 10. ReportInfos
  reportList() {
    return {
      ...this.#envelope(TYPE_NAMES.reportListResponse),
      report_infos: this.definitions.map((d) => ({ report_type: d.report_type, report_name: d.report_name })),
    };
  }

  // 11. LookBacks
  lookBacks() {
    return { ...this.#envelope(TYPE_NAMES.lookBacksResponse), look_backs: [...LOOK_BACK_PERIODS] };
  }

  // 12. GetTransactionTable: a lazy row source (the router streams it).
  transactionRows(req: Out<typeof transactionTableRequest>): Iterable<TransactionRow> {
    const p = this.portfolios.find(
      (x) => x.name === req.portfolio_name && (!req.portfolio_type || x.type === req.portfolio_type),
    );
    if (!p)
      throw new SimError(
        404,
        `Portfolio '${req.portfolio_name}'${req.portfolio_type ? ` of type ${req.portfolio_type}` : ""} not found; known: ${this.portfolios.map((x) => `${x.name} (${x.type})`).join(", ")}`,
        "Portfolio not found",
      );
    return this.transactions.select(p, {
      startDate: req.start_date ? utcDateOf(req.start_date) : undefined,
      endDate: req.end_date ? utcDateOf(req.end_date) : undefined,
      includeZeroQuantities: req.include_zero_quantities ?? SERVICE_DEFAULTS.include_zero_quantities,
      counterparties: req.counterparties ?? [],
    });
  }

  // 13. ApiKeys
  listApiKeys() {
    return this.apiKeys.map((k) => ({ $type: apiKeyTypeName(DEFAULT_BRAND), ...k }));
  }

  /** The wire `surface` of an equity as the simulator prices it (uploaded ATM vols win), for notebooks. */
  surfaceOf(code: string) {
    const eq = this.universe.equity(code.split(".")[0]!);
    if (!eq)
      throw new SimError(404, `No equity '${code}'; known: ${this.universe.equities.map((e) => e.id).join(", ")}`);
    const uploaded = this.#lastVolCurve.get(eq.code);
    const ccy = this.curves.has(eq.currency) ? eq.currency : "USD";
    return this.universe.surface(
      eq,
      (t) => this.curves.zero(ccy, this.curves.latestDate, t),
      uploaded ? (days) => linearAt(uploaded.maturities, uploaded.vols, days, "flat") : undefined,
    );
  }
}

/** The fields of a launcher create that are not VaR or risk members. */
const LAUNCHER_COMMON_FIELDS = new Set([
  "$type",
  "report_name",
  "reporting_currency",
  "market_data_environment_names",
  "portfolio_name",
  "portfolio_type",
]);

function contractSize(t: Tradable): number {
  return t.kind === "option" ? t.multiplier : t.kind === "bond" ? 0.01 : 1;
}

/** Inserts keeping `queue` ordered by `atMs` (appending is the usual case: one lag, a clock that moves on). */
function insertByTime<T extends { atMs: number }>(queue: T[], entry: T): void {
  let i = queue.length;
  while (i > 0 && queue[i - 1]!.atMs > entry.atMs) i--;
  queue.splice(i, 0, entry);
}
