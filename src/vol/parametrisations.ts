/**
 * The SVI parametrisations of one slice and the closed-form maps between them, plus Gatheral–Jacquier's
 * closed-form butterfly repair. Source: J. Gatheral, A. Jacquier, "Arbitrage-free SVI volatility surfaces",
 * Quantitative Finance 14(1), 2014 (arXiv 1204.0646), "GJ" below: raw §3.1, natural §3.2 (and the maps
 * raw ⇄ natural), jump-wings §3.3 (and raw ⇄ jump-wings), SSVI §4 (Theorem 4.2), the repair §5.1 (Example 5.1).
 *
 * Four forms of the same total variance `w(k) = σ_BS(k)²·T` at log-moneyness `k = ln(K/F)`:
 * - `raw` {@link RawSvi} `{ a, b, rho, m, s }` (GJ's σ is `s` here): `w = a + b·(rho·(k − m) + sqrt((k − m)² + s²))`;
 * - `natural` {@link NaturalSvi} `{ delta, mu, rho, omega, zeta }`:
 *   `w = delta + omega/2·(1 + zeta·rho·(k − mu) + sqrt((zeta·(k − mu) + rho)² + 1 − rho²))`;
 * - `jumpWings` {@link JumpWings} `{ v, psi, p, c, vTilde }` at maturity T (GJ's v_t, ψ_t, p_t, c_t, ṽ_t);
 * - `model` {@link SliceParams} `{ vol, skew, smile, putWing, callWing }` at maturity T (vol-model.md: jump-wings
 *   with the ATM curvature in place of the minimum variance; `vol = sqrt(v)`, `skew = psi`, `putWing = p`,
 *   `callWing = c`).
 * Raw and natural are in total variance and do not depend on T; jump-wings and the model's form do.
 *
 * Every function validates its input and throws {@link VolModelError} naming the field (the form's own
 * key: `b`, `zeta`, `vTilde`, `callWing`, `T`, …) and the failed condition; none returns NaN or ∞.
 */
import { VolModelError, fmt } from "./errors";
import { modelMinTotalVariance, rawSvi, sliceParams, type RawSvi, type SliceParams } from "./svi";

/**
 * Natural SVI (GJ §3.2): `w(k) = delta + omega/2·(1 + zeta·rho·(k − mu) + sqrt((zeta·(k − mu) + rho)² + (1 − rho²)))`.
 * Valid when `omega ≥ 0`, `|rho| < 1`, `zeta > 0` and the minimum `delta + omega·(1 − rho²)` is ≥ 0.
 */
export interface NaturalSvi {
  /** Vertical shift Δ (total variance). */
  delta: number;
  /** Horizontal shift μ (log-moneyness). */
  mu: number;
  /** Correlation-like asymmetry ρ, |ρ| < 1. */
  rho: number;
  /** ω ≥ 0 (total variance). */
  omega: number;
  /** ζ > 0 (per unit of log-moneyness). */
  zeta: number;
}

/**
 * Jump-wings SVI (GJ §3.3) of a slice at maturity T, with `w_t = w(0)` the ATM total variance:
 * `v = w(0)/T`, `psi = w'(0)/(2·sqrt(w(0)))`, `p = b·(1 − rho)/sqrt(w(0))`, `c = b·(1 + rho)/sqrt(w(0))`,
 * `vTilde = min_k w(k)/T`. `v` and `vTilde` are variances per year; `psi`, `p`, `c` are in units of
 * `sqrt(w(0))`, as the model's skew and wings (GJ Example 5.1's printed numbers confirm it).
 */
export interface JumpWings {
  /** ATM variance `w(0)/T` (> 0). */
  v: number;
  /** ATM skew `w'(0)/(2·sqrt(w(0)))`, with `-p < 2·psi < c`. */
  psi: number;
  /** Put-wing slope (> 0): `w'(k) → −p·sqrt(w(0))` as k → −∞. */
  p: number;
  /** Call-wing slope (> 0): `w'(k) → c·sqrt(w(0))` as k → +∞. */
  c: number;
  /** Minimum implied variance `min_k w(k)/T`, `0 ≤ vTilde ≤ v` (`= v` exactly when `psi = 0`). */
  vTilde: number;
}

/** The four forms of a slice, by name. */
export interface SviForms {
  raw: RawSvi;
  natural: NaturalSvi;
  jumpWings: JumpWings;
  model: SliceParams;
}

/** A form's name: `"raw"`, `"natural"`, `"jumpWings"` or `"model"`. */
export type SviForm = keyof SviForms;

/** A slice in any of the four forms. */
export type AnySviSlice = SviForms[SviForm];

/** The form of a slice type, as {@link sliceForm} finds it at run time (raw, natural, jump-wings, model, in that order). */
export type FormOf<S> = S extends RawSvi
  ? "raw"
  : S extends NaturalSvi
    ? "natural"
    : S extends JumpWings
      ? "jumpWings"
      : S extends SliceParams
        ? "model"
        : SviForm;

/** The keys of each form, in the order the tables of GJ list them. */
export const SVI_FORM_KEYS: { readonly [F in SviForm]: readonly (keyof SviForms[F])[] } = Object.freeze({
  raw: Object.freeze(["a", "b", "rho", "m", "s"] as const),
  natural: Object.freeze(["delta", "mu", "rho", "omega", "zeta"] as const),
  jumpWings: Object.freeze(["v", "psi", "p", "c", "vTilde"] as const),
  model: Object.freeze(["vol", "skew", "smile", "putWing", "callWing"] as const),
});

const FORM_NAMES: Record<SviForm, string> = {
  raw: "raw SVI",
  natural: "natural SVI",
  jumpWings: "jump-wings SVI",
  model: "model slice",
};

function fail(form: SviForm | undefined, field: string, condition: string, detail: string): never {
  throw new VolModelError(form ? `${FORM_NAMES[form]}: ${detail}` : detail, { field, condition });
}

/**
 * The form of a slice, from its keys: the one form whose five keys are all present (extra keys are
 * ignored). Throws {@link VolModelError} (field `slice`) when none or more than one form matches,
 * naming the keys each near miss lacks (e.g. GJ's `sigma` for this repo's `s`).
 * @example
 * ```ts
 * import { sliceForm } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * sliceForm(raw); // "raw"
 * ```
 */
export function sliceForm(slice: unknown): SviForm {
  if (slice === null || typeof slice !== "object") {
    fail(
      undefined,
      "slice",
      "one SVI form",
      `a slice must be an object in one SVI form; got ${slice === null ? "null" : typeof slice}`,
    );
  }
  const forms = Object.keys(SVI_FORM_KEYS) as SviForm[];
  const missing = forms.map((f) => ({
    form: f,
    missing: (SVI_FORM_KEYS[f] as readonly string[]).filter((key) => !(key in slice)),
  }));
  const full = missing.filter((x) => x.missing.length === 0);
  if (full.length === 1) return full[0]!.form;
  if (full.length > 1) {
    fail(
      undefined,
      "slice",
      "one SVI form",
      `the slice has the keys of more than one form (${full.map((x) => x.form).join(", ")}); give the keys of one only`,
    );
  }
  const near = missing
    .map((x) => `${x.form} {${SVI_FORM_KEYS[x.form].join(", ")}} lacks ${x.missing.join(", ")}`)
    .join("; ");
  fail(undefined, "slice", "one SVI form", `the slice is in no SVI form: ${near}`);
}

function checkFinite(form: SviForm, slice: object): void {
  for (const key of SVI_FORM_KEYS[form]) {
    const x = (slice as Record<string, unknown>)[key];
    if (typeof x !== "number" || !Number.isFinite(x)) {
      fail(form, key, "finite", `${key} must be a finite number; got ${typeof x === "number" ? x : JSON.stringify(x)}`);
    }
  }
}

function checkT(T: number): void {
  if (typeof T !== "number" || !Number.isFinite(T) || !(T > 0)) {
    fail(
      undefined,
      "T",
      "T > 0",
      `maturity T must be a finite number of years > 0; got ${typeof T === "number" ? fmt(T) : JSON.stringify(T)}`,
    );
  }
}

/** `sqrt(1 − x²)` as `sqrt((1 − x)(1 + x))`, accurate as |x| → 1. */
function cosOf(x: number): number {
  return Math.sqrt((1 - x) * (1 + x));
}

/**
 * Checks a raw slice (GJ §3.1): finite, `b ≥ 0`, `|rho| < 1`, `s > 0` and a non-negative minimum
 * `a + b·s·sqrt(1 − rho²) ≥ 0`. With `forWings`, also `b > 0` and `w(0) > 0`, which jump-wings and the
 * model's form need (their wings and skew are in units of `sqrt(w(0))`).
 */
function checkRaw(raw: RawSvi, forWings: boolean): void {
  checkFinite("raw", raw);
  const { a, b, rho, m, s } = raw;
  if (!(b >= 0)) fail("raw", "b", "b >= 0", `b must be >= 0; got b = ${fmt(b)}`);
  if (!(Math.abs(rho) < 1)) fail("raw", "rho", "|rho| < 1", `rho must satisfy |rho| < 1; got rho = ${fmt(rho)}`);
  if (!(s > 0)) fail("raw", "s", "s > 0", `s (GJ's sigma) must be > 0; got s = ${fmt(s)}`);
  const minW = a + b * s * Math.sqrt(1 - rho * rho); // as {@link minTotalVariance} writes it, so the two agree to the bit
  if (!(minW >= 0)) {
    fail(
      "raw",
      "a",
      "a + b·s·sqrt(1 - rho²) >= 0",
      `the minimum total variance a + b·s·sqrt(1 - rho²) must be >= 0; got ${fmt(minW)}`,
    );
  }
  if (!forWings) return;
  if (!(b > 0))
    fail(
      "raw",
      "b",
      "b > 0",
      `b must be > 0 for the jump-wings and model forms (their wings are b·(1 ± rho)/sqrt(w(0))); got b = 0`,
    );
  const w0 = a + b * (Math.sqrt(m * m + s * s) - rho * m);
  if (!(w0 > 0 && Number.isFinite(w0))) {
    fail(
      "raw",
      "a",
      "w(0) > 0",
      `the ATM total variance w(0) must be > 0 and finite for the jump-wings and model forms; got w(0) = ${fmt(w0)}`,
    );
  }
}

/** Checks a natural slice (GJ §3.2): finite, `omega ≥ 0`, `|rho| < 1`, `zeta > 0`, minimum `delta + omega·(1 − rho²) ≥ 0`. */
function checkNatural(n: NaturalSvi): void {
  checkFinite("natural", n);
  const { delta, rho, omega, zeta } = n;
  if (!(omega >= 0)) fail("natural", "omega", "omega >= 0", `omega must be >= 0; got omega = ${fmt(omega)}`);
  if (!(Math.abs(rho) < 1)) fail("natural", "rho", "|rho| < 1", `rho must satisfy |rho| < 1; got rho = ${fmt(rho)}`);
  if (!(zeta > 0)) fail("natural", "zeta", "zeta > 0", `zeta must be > 0; got zeta = ${fmt(zeta)}`);
  const minW = delta + omega * (1 - rho) * (1 + rho);
  if (!(minW >= 0)) {
    fail(
      "natural",
      "delta",
      "delta + omega·(1 - rho²) >= 0",
      `the minimum total variance delta + omega·(1 - rho²) must be >= 0; got ${fmt(minW)}`,
    );
  }
}

/**
 * Checks a jump-wings slice (GJ §3.3) at maturity T: finite, `v > 0`, `p > 0`, `c > 0`, `-p < 2·psi < c`
 * (the raw `|m/sqrt(m² + s²)| < 1`), `0 ≤ vTilde ≤ v`, and `vTilde = v` when `psi = 0` (the minimum is
 * then at the money). {@link jumpWingsToRaw} needs more: `psi ≠ 0` and `vTilde < v`.
 */
function checkJumpWings(jw: JumpWings, T: number): void {
  checkT(T);
  checkFinite("jumpWings", jw);
  const { v, psi, p, c, vTilde } = jw;
  if (!(v > 0)) fail("jumpWings", "v", "v > 0", `v (ATM variance) must be > 0; got v = ${fmt(v)}`);
  if (!(p > 0)) fail("jumpWings", "p", "p > 0", `p (put wing) must be > 0; got p = ${fmt(p)}`);
  if (!(c > 0)) fail("jumpWings", "c", "c > 0", `c (call wing) must be > 0; got c = ${fmt(c)}`);
  if (!(-p < 2 * psi && 2 * psi < c)) {
    fail(
      "jumpWings",
      "psi",
      "-p < 2·psi < c",
      `psi must satisfy -p < 2·psi < c; got 2·psi = ${fmt(2 * psi)}, p = ${fmt(p)}, c = ${fmt(c)}`,
    );
  }
  if (!(vTilde >= 0))
    fail("jumpWings", "vTilde", "vTilde >= 0", `vTilde (minimum variance) must be >= 0; got vTilde = ${fmt(vTilde)}`);
  if (psi === 0 && vTilde !== v) {
    fail(
      "jumpWings",
      "vTilde",
      "vTilde = v when psi = 0",
      `with psi = 0 the minimum is at the money, so vTilde must equal v; got vTilde = ${fmt(vTilde)}, v = ${fmt(v)}`,
    );
  }
  if (!(vTilde <= v))
    fail(
      "jumpWings",
      "vTilde",
      "vTilde <= v",
      `vTilde (minimum variance) must be <= v (ATM variance); got vTilde = ${fmt(vTilde)}, v = ${fmt(v)}`,
    );
}

/** The SliceParams key of each wire field rawSvi names in its errors. */
const MODEL_FIELDS: Record<string, keyof SliceParams | "T"> = {
  vols: "vol",
  skews: "skew",
  smiles: "smile",
  put_wings: "putWing",
  call_wings: "callWing",
  benchmark_maturities: "T",
};

/** rawSvi with its errors naming the SliceParams keys (`putWing`, not `put_wings`). */
function modelRaw(model: SliceParams, T: number): RawSvi {
  checkT(T);
  checkFinite("model", model);
  try {
    return rawSvi(model, T);
  } catch (error) {
    if (!(error instanceof VolModelError)) throw error;
    const field = error.field === undefined ? undefined : (MODEL_FIELDS[error.field] ?? error.field);
    throw new VolModelError(`${FORM_NAMES.model}: ${error.message}`, { field, condition: error.condition });
  }
}

function checkOutput(form: SviForm, out: object, from: string): void {
  for (const key of SVI_FORM_KEYS[form]) {
    const x = (out as Record<string, number>)[key]!;
    if (!Number.isFinite(x)) {
      fail(
        form,
        key,
        "finite result",
        `${key} comes out ${x} from ${from}: the parameters overflow or underflow in double precision; rescale them`,
      );
    }
  }
}

/**
 * Raw → natural (GJ §3.2, the inverse of the natural → raw map):
 * `delta = a − b·s·sqrt(1 − rho²)`, `mu = m + rho·s/sqrt(1 − rho²)`, `omega = 2·b·s/sqrt(1 − rho²)`,
 * `zeta = sqrt(1 − rho²)/s`, `rho` unchanged. Checks the raw slice (`b ≥ 0`, `|rho| < 1`, `s > 0`, minimum ≥ 0).
 * @example
 * ```ts
 * import { rawToNatural } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * const natural = rawToNatural(raw); // { delta, mu, rho, omega, zeta }
 * ```
 */
export function rawToNatural(raw: RawSvi): NaturalSvi {
  checkRaw(raw, false);
  const { a, b, rho, m, s } = raw;
  const cr = cosOf(rho);
  const out = { delta: a - b * s * cr, mu: m + (rho * s) / cr, rho, omega: (2 * b * s) / cr, zeta: cr / s };
  checkOutput("natural", out, "raw SVI");
  return out;
}

/**
 * Natural → raw (GJ §3.2): `a = delta + omega/2·(1 − rho²)`, `b = omega·zeta/2`,
 * `m = mu − rho/zeta`, `s = sqrt(1 − rho²)/zeta`, `rho` unchanged. Checks the natural slice
 * (`omega ≥ 0`, `|rho| < 1`, `zeta > 0`, minimum ≥ 0).
 * @example
 * ```ts
 * import { naturalToRaw, rawToNatural } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * naturalToRaw(rawToNatural(raw)); // raw again, to rounding
 * ```
 */
export function naturalToRaw(natural: NaturalSvi): RawSvi {
  checkNatural(natural);
  const { delta, mu, rho, omega, zeta } = natural;
  const out = {
    a: delta + (omega / 2) * (1 - rho) * (1 + rho),
    b: (omega * zeta) / 2,
    rho,
    m: mu - rho / zeta,
    s: cosOf(rho) / zeta,
  };
  checkOutput("raw", out, "natural SVI");
  return out;
}

/**
 * Raw → jump-wings at maturity `T` years (GJ §3.3), with `w(0) = a + b·(−rho·m + sqrt(m² + s²))`:
 * `v = w(0)/T`, `psi = b/(2·sqrt(w(0)))·(rho − m/sqrt(m² + s²))`, `p = b·(1 − rho)/sqrt(w(0))`,
 * `c = b·(1 + rho)/sqrt(w(0))`, `vTilde = (a + b·s·sqrt(1 − rho²))/T` (evaluated as
 * `(w(0) − b·r·(rho − beta)²/(1 − rho·beta + (s/r)·sqrt(1 − rho²)))/T`, `r = sqrt(m² + s²)`, `beta = m/r`, the same
 * number without cancellation). Needs, beyond a valid raw slice, `b > 0` and `w(0) > 0`.
 * @example
 * ```ts
 * import { rawToJumpWings } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * const jw = rawToJumpWings(raw, 0.25); // { v, psi, p, c, vTilde }
 * ```
 */
export function rawToJumpWings(raw: RawSvi, T: number): JumpWings {
  checkT(T);
  checkRaw(raw, true);
  const { a, b, rho, m, s } = raw;
  const r = Math.sqrt(m * m + s * s);
  const w0 = a + b * (r - rho * m);
  const sq = Math.sqrt(w0);
  const beta = m / r;
  const d = rho - beta;
  // min w = a + b·s·sqrt(1 − rho²) written as w(0) − b·r·(rho − beta)²/(1 − rho·beta + (s/r)·sqrt(1 − rho²)): no
  // cancellation, and never above w(0), so vTilde ≤ v holds in floating point too (= v exactly when psi = 0).
  const minW = w0 - (b * r * d * d) / (1 - rho * beta + (s / r) * cosOf(rho));
  const out = {
    v: w0 / T,
    psi: (b * d) / (2 * sq),
    p: (b * (1 - rho)) / sq,
    c: (b * (1 + rho)) / sq,
    vTilde: minW / T,
  };
  checkOutput("jumpWings", out, "raw SVI");
  return out;
}

/**
 * The raw slice of valid jump-wings parameters (GJ §3.3, the inverse map), with `w = v·T`:
 * `b = sqrt(w)/2·(c + p)`, `rho = 1 − p·sqrt(w)/b = (c − p)/(c + p)`, `beta = rho − 2·psi·sqrt(w)/b`
 * (= `m/sqrt(m² + s²)`), and `r = sqrt(m² + s²)` from `(v − vTilde)·T = b·r·(1 − rho·beta − sqrt((1 − beta²)(1 − rho²)))`;
 * then `m = beta·r`, `s = r·sqrt(1 − beta²)`, `a = vTilde·T − b·s·sqrt(1 − rho²)`.
 *
 * GJ write `m = (v − vTilde)·T / (b·(−rho + sign(alpha)·sqrt(1 + alpha²) − alpha·sqrt(1 − rho²)))`, `s = alpha·m` with
 * `alpha = sign(beta)·sqrt(1/beta² − 1)`, and treat `m = 0` (`beta = 0`, alpha infinite) apart; in `r` and `beta`
 * it is the same formula without the division by `beta`, so `beta = 0` gives `m = 0`, `s = r` with no special case.
 * The bracket is evaluated as `(rho − beta)²/(1 − rho·beta + sqrt((1 − beta²)(1 − rho²)))`, with
 * `rho − beta = 4·psi/(p + c)`, so it keeps full relative precision for small psi.
 *
 * `psi = 0` (`beta = rho`: the minimum is at the money and `vTilde = v`) leaves `r` undetermined: the
 * jump-wings parameters then describe a whole family of raw slices, and this throws (condition `psi ≠ 0`).
 * @example
 * ```ts
 * import { jumpWingsToRaw, rawToJumpWings } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * jumpWingsToRaw(rawToJumpWings(raw, 0.25), 0.25); // raw again, to rounding
 * ```
 */
export function jumpWingsToRaw(jw: JumpWings, T: number): RawSvi {
  checkJumpWings(jw, T);
  const { v, psi, p, c, vTilde } = jw;
  if (psi === 0 || !(vTilde < v)) {
    fail(
      "jumpWings",
      psi === 0 ? "psi" : "vTilde",
      "psi ≠ 0 and vTilde < v",
      `psi = ${fmt(psi)} and vTilde = v = ${fmt(v)}: the minimum is at the money (to double precision), which leaves the raw m and s undetermined; give the slice in raw, natural or model form`,
    );
  }
  const sq = Math.sqrt(v * T);
  const pc = p + c;
  const b = (sq * pc) / 2;
  const rho = (c - p) / pc;
  const beta = (c - p - 4 * psi) / pc;
  const cosBeta = Math.sqrt(((2 * (p + 2 * psi)) / pc) * ((2 * (c - 2 * psi)) / pc)); // sqrt((1 − beta)(1 + beta))
  const cosRho = (2 * Math.sqrt(p * c)) / pc; // sqrt(1 − rho²)
  const d = (4 * psi) / pc; // rho − beta
  const bracket = (d * d) / (1 - rho * beta + cosBeta * cosRho);
  const r = ((v - vTilde) * T) / (b * bracket);
  const s = r * cosBeta;
  const out = { a: vTilde * T - b * s * cosRho, b, rho, m: beta * r, s };
  checkOutput("raw", out, "jump-wings SVI");
  if (!(s > 0))
    fail(
      "raw",
      "s",
      "s > 0",
      `s comes out ${fmt(s)} from jump-wings SVI (psi = ${fmt(psi)} is too close to 0 in double precision)`,
    );
  return out;
}

/**
 * Raw → the model's form at maturity `T` years: {@link sliceParams} (`vol = sqrt(w(0)/T)`,
 * `skew = w'(0)/(2·sqrt(w(0)))`, `smile = (w''(0)/2 − skew²)/sqrt(w(0))`, wings `b·(1 ∓ rho)/sqrt(w(0))`),
 * after checking the raw slice, `b > 0` and `w(0) > 0`.
 * @example
 * ```ts
 * import { rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * const params = rawToModel(raw, 0.25); // the model's form: { vol, skew, smile, putWing, callWing }
 * ```
 */
export function rawToModel(raw: RawSvi, T: number): SliceParams {
  checkT(T);
  checkRaw(raw, true);
  const out = sliceParams(raw, T);
  checkOutput("model", out, "raw SVI");
  return out;
}

/**
 * The model's form → raw at maturity `T` years: {@link rawSvi} (vol-model.md, "Conversion to raw SVI"), with
 * its checks (`vol > 0`, `p > 0`, `c > 0`, `-p < 2·psi < c`, `kappa > -psi²/sqrt(theta)`, minimum ≥ 0);
 * errors name the {@link SliceParams} key (`putWing`, …).
 * @example
 * ```ts
 * import { modelToRaw, rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * modelToRaw(rawToModel(raw, 0.25), 0.25); // raw again, to rounding
 * ```
 */
export function modelToRaw(model: SliceParams, T: number): RawSvi {
  const { a, b, rho, m, s } = modelRaw(model, T);
  return { a, b, rho, m, s };
}

/**
 * The model's form → jump-wings at maturity `T` years: `v = vol²`, `psi = skew`, `p = putWing`, `c = callWing`
 * (the same quantities, vol-model.md), and `vTilde = min_k w(k)/T` of the raw slice {@link modelToRaw} gives,
 * `a + b·s·sqrt(1 − rho²)` computed from the model's parameters by {@link modelMinTotalVariance} (the same
 * number `rawSvi` holds ≥ 0).
 * Checks the slice as {@link modelToRaw} does.
 * @example
 * ```ts
 * import { modelToJumpWings, rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * modelToJumpWings(rawToModel(raw, 0.25), 0.25);
 * ```
 */
export function modelToJumpWings(model: SliceParams, T: number): JumpWings {
  modelRaw(model, T); // its checks
  // The minimum from the model's parameters, as rawSvi's own check computes it (no cancellation, no m/R rounding).
  const minW = modelMinTotalVariance(model, T);
  const out = { v: model.vol * model.vol, psi: model.skew, p: model.putWing, c: model.callWing, vTilde: minW / T };
  checkOutput("jumpWings", out, "the model slice");
  return out;
}

/**
 * Jump-wings → the model's form at maturity `T` years: `vol = sqrt(v)`, `skew = psi`, `putWing = p`,
 * `callWing = c`, and the ATM curvature `smile = (w''(0)/2 − psi²)/sqrt(v·T)` with `w''(0) = b·s²/r³` of the raw
 * slice {@link jumpWingsToRaw} gives (so `psi = 0` throws, as there).
 * @example
 * ```ts
 * import { jumpWingsToModel, rawToJumpWings } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * jumpWingsToModel(rawToJumpWings(raw, 0.25), 0.25); // { vol, skew, smile, putWing, callWing }
 * ```
 */
export function jumpWingsToModel(jw: JumpWings, T: number): SliceParams {
  const raw = jumpWingsToRaw(jw, T);
  const { v, psi, p, c } = jw;
  const r = Math.sqrt(raw.m * raw.m + raw.s * raw.s);
  const w2 = (raw.b * (raw.s / r) * (raw.s / r)) / r;
  const out = { vol: Math.sqrt(v), skew: psi, smile: (w2 / 2 - psi * psi) / Math.sqrt(v * T), putWing: p, callWing: c };
  checkOutput("model", out, "jump-wings SVI");
  return out;
}

/**
 * Natural → jump-wings at maturity `T` years: {@link naturalToRaw} then {@link rawToJumpWings}.
 * @example
 * ```ts
 * import { naturalToJumpWings, rawToNatural } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * naturalToJumpWings(rawToNatural(raw), 0.25);
 * ```
 */
export function naturalToJumpWings(natural: NaturalSvi, T: number): JumpWings {
  checkT(T);
  return rawToJumpWings(naturalToRaw(natural), T);
}

/**
 * Jump-wings → natural at maturity `T` years: {@link jumpWingsToRaw} then {@link rawToNatural}.
 * @example
 * ```ts
 * import { jumpWingsToNatural, rawToJumpWings } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * jumpWingsToNatural(rawToJumpWings(raw, 0.25), 0.25);
 * ```
 */
export function jumpWingsToNatural(jw: JumpWings, T: number): NaturalSvi {
  return rawToNatural(jumpWingsToRaw(jw, T));
}

/**
 * Natural → the model's form at maturity `T` years: {@link naturalToRaw} then {@link rawToModel}.
 * @example
 * ```ts
 * import { naturalToModel, rawToNatural } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * naturalToModel(rawToNatural(raw), 0.25);
 * ```
 */
export function naturalToModel(natural: NaturalSvi, T: number): SliceParams {
  checkT(T);
  return rawToModel(naturalToRaw(natural), T);
}

/**
 * The model's form → natural at maturity `T` years: {@link modelToRaw} then {@link rawToNatural}.
 * @example
 * ```ts
 * import { modelToNatural, rawToModel } from "risk-portal-lab/vol";
 * const raw = { a: 0.01, b: 0.1, rho: -0.4, m: 0, s: 0.2 }; // raw SVI, T = 0.25
 * modelToNatural(rawToModel(raw, 0.25), 0.25);
 * ```
 */
export function modelToNatural(model: SliceParams, T: number): NaturalSvi {
  return rawToNatural(modelToRaw(model, T));
}

function checkForm(form: SviForm, slice: AnySviSlice, T: number): void {
  checkT(T);
  if (form === "raw") checkRaw(slice as RawSvi, false);
  else if (form === "natural") checkNatural(slice as NaturalSvi);
  else if (form === "jumpWings") checkJumpWings(slice as JumpWings, T);
  else modelRaw(slice as SliceParams, T);
}

function copy<F extends SviForm>(form: F, slice: SviForms[F]): SviForms[F] {
  const out: Record<string, number> = {};
  for (const key of SVI_FORM_KEYS[form])
    out[key as string] = (slice as unknown as Record<string, number>)[key as string]!;
  return out as unknown as SviForms[F];
}

/**
 * Converts a slice to another form at maturity `T` years (used by the jump-wings and model forms; checked
 * > 0 always, so a call never depends on which forms it joins). The input's form comes from its keys
 * ({@link sliceForm}); the input is validated even when `to` is its own form (then a copy is returned).
 *
 * @example
 * ```ts
 * const jw = vol.convertSlice({ a: -0.041, b: 0.1331, rho: 0.306, m: 0.3586, s: 0.4153 }, "jumpWings", 1);
 * // { v: 0.01742625…, psi: -0.1752111…, p: 0.6997381…, c: 1.316798…, vTilde: 0.0116249… }
 * ```
 */
export function convertSlice<S extends AnySviSlice, G extends SviForm>(slice: S, to: G, T: number): SviForms[G] {
  const from = sliceForm(slice);
  if (!(to in SVI_FORM_KEYS))
    fail(undefined, "to", "an SVI form", `to must be one of raw, natural, jumpWings, model; got ${JSON.stringify(to)}`);
  checkT(T);
  if (from === to) {
    checkForm(from, slice, T);
    return copy(to, slice as unknown as SviForms[G]);
  }
  const key = `${from}>${to}`;
  switch (key) {
    case "raw>natural":
      return rawToNatural(slice as RawSvi) as SviForms[G];
    case "raw>jumpWings":
      return rawToJumpWings(slice as RawSvi, T) as SviForms[G];
    case "raw>model":
      return rawToModel(slice as RawSvi, T) as SviForms[G];
    case "natural>raw":
      return naturalToRaw(slice as NaturalSvi) as SviForms[G];
    case "natural>jumpWings":
      return naturalToJumpWings(slice as NaturalSvi, T) as SviForms[G];
    case "natural>model":
      return naturalToModel(slice as NaturalSvi, T) as SviForms[G];
    case "jumpWings>raw":
      return jumpWingsToRaw(slice as JumpWings, T) as SviForms[G];
    case "jumpWings>natural":
      return jumpWingsToNatural(slice as JumpWings, T) as SviForms[G];
    case "jumpWings>model":
      return jumpWingsToModel(slice as JumpWings, T) as SviForms[G];
    case "model>raw":
      return modelToRaw(slice as SliceParams, T) as SviForms[G];
    case "model>natural":
      return modelToNatural(slice as SliceParams, T) as SviForms[G];
    default: // "model>jumpWings"
      return modelToJumpWings(slice as SliceParams, T) as SviForms[G];
  }
}

/** A repaired slice's SSVI parameters (GJ §4): `w(k) = theta/2·(1 + rho·phi·k + sqrt((phi·k + rho)² + 1 − rho²))`. */
export interface SsviSlice {
  /** ATM total variance `theta = w(0)` (kept from the input). */
  theta: number;
  /** `rho = psi/(p + psi)`. */
  rho: number;
  /** `phi = (p + c')/sqrt(theta)`. */
  phi: number;
}

/** One field of the input's form that the repair changed. */
export interface RepairChange {
  /** The key in the input's form (`c`, `vTilde`; `callWing`, `smile`; any raw or natural key). */
  field: string;
  before: number;
  after: number;
}

/** What {@link repairButterfly} returns. */
export interface ButterflyRepair<F extends SviForm = SviForm> {
  /** The input's form (from its keys). */
  form: F;
  /** The repaired slice, in the input's form. */
  slice: SviForms[F];
  /** The fields of the input's form whose value changed (exact comparison), in the form's key order. */
  changed: RepairChange[];
  /** The input in jump-wings form. */
  before: JumpWings;
  /** The repaired slice in jump-wings form: `v`, `psi`, `p` as before, `c' = p + 2·psi`, `vTilde' = 4·p·c'/(p + c')²·v`. */
  after: JumpWings;
  /** The repaired slice as an SSVI slice (GJ §5.1: the repair makes it one). */
  ssvi: SsviSlice;
  /**
   * GJ Theorem 4.2's sufficient conditions for the repaired slice to be free of butterfly arbitrage:
   * `leeTerm = theta·phi·(1 + |rho|) < 4` (`= 2·sqrt(theta)·max(p, c')`, Lee's bound) and
   * `curvatureTerm = theta·phi²·(1 + |rho|) ≤ 4` (`= 2·(p + c')·max(p, c')`); `hold` when both do.
   */
  conditions: { leeTerm: number; curvatureTerm: number; hold: boolean };
}

/**
 * GJ's closed-form butterfly repair (GJ §5.1, Example 5.1): keep the ATM variance `v`, skew `psi` and
 * put wing `p` of the slice, and set the call wing `c' = p + 2·psi` and the minimum variance
 * `vTilde' = 4·p·c'/(p + c')²·v`. The result is the SSVI slice with `theta = v·T`, `rho = psi/(p + psi)`,
 * `phi = (p + c')/sqrt(theta)` (its raw `m/sqrt(m² + s²) = −rho` and `vTilde'/v = 1 − rho²`), which GJ
 * Theorem 4.2 proves free of butterfly arbitrage when `theta·phi·(1 + |rho|) < 4` and
 * `theta·phi²·(1 + |rho|) ≤ 4`, i.e. `sqrt(theta)·max(p, c') < 2` and `(p + c')·max(p, c') ≤ 2`
 * (reported in `conditions`; the repair is returned either way).
 *
 * The slice may be in any form (found from its keys); `T` is its maturity in years. The repaired slice comes
 * back in the same form: the model's form keeps `vol`, `skew`, `putWing` exactly and gets
 * `smile = (theta·phi²·(1 − rho²)/4 − psi²)/sqrt(theta)`; jump-wings keeps `v`, `psi`, `p`. It is a recipe,
 * not a minimal change: a slice already free of arbitrage is changed too, unless `c = p + 2·psi` already.
 *
 * @example
 * ```ts
 * const { slice, changed } = vol.repairButterfly({ a: -0.041, b: 0.1331, rho: 0.306, m: 0.3586, s: 0.4153 }, 1);
 * // slice ≈ { a: 0.0077409, b: 0.069242, rho: -0.3340365, m: 0.0420338, s: 0.118608 } (GJ Example 5.1)
 * ```
 */
export function repairButterfly<S extends AnySviSlice>(slice: S, T: number): ButterflyRepair<FormOf<S>> {
  const form = sliceForm(slice) as FormOf<S> & SviForm;
  checkForm(form, slice, T);
  const before: JumpWings =
    form === "jumpWings"
      ? copy("jumpWings", slice as JumpWings)
      : form === "model"
        ? modelToJumpWings(slice as SliceParams, T)
        : rawToJumpWings(form === "raw" ? (slice as RawSvi) : naturalToRaw(slice as NaturalSvi), T);
  const { v, psi, p } = before;
  const c2 = p + 2 * psi; // > 0 on every valid slice (-p < 2·psi)
  const theta = v * T;
  const sq = Math.sqrt(theta);
  const after: JumpWings = { v, psi, p, c: c2, vTilde: ((4 * p * c2) / ((p + c2) * (p + c2))) * v };
  const ssvi: SsviSlice = { theta, rho: psi / (p + psi), phi: (p + c2) / sq };
  const natural: NaturalSvi = { delta: 0, mu: 0, rho: ssvi.rho, omega: theta, zeta: ssvi.phi };
  let repaired: AnySviSlice;
  if (form === "jumpWings") repaired = after;
  else if (form === "natural") repaired = natural;
  else if (form === "raw") repaired = naturalToRaw(natural);
  else {
    const model = slice as SliceParams;
    const w2 = theta * ssvi.phi * ssvi.phi * (1 - ssvi.rho) * (1 + ssvi.rho); // w''(0) of the SSVI slice
    repaired = {
      vol: model.vol,
      skew: model.skew,
      smile: (w2 / 4 - psi * psi) / sq,
      putWing: model.putWing,
      callWing: c2,
    };
  }
  checkOutput(form, repaired, "the repair");
  const changed: RepairChange[] = [];
  for (const key of SVI_FORM_KEYS[form] as readonly string[]) {
    const x = (slice as unknown as Record<string, number>)[key]!;
    const y = (repaired as unknown as Record<string, number>)[key]!;
    if (x !== y) changed.push({ field: key, before: x, after: y });
  }
  const wing = 1 + Math.abs(ssvi.rho);
  const leeTerm = theta * ssvi.phi * wing;
  const curvatureTerm = theta * ssvi.phi * ssvi.phi * wing;
  return {
    form,
    slice: repaired,
    changed,
    before,
    after,
    ssvi,
    conditions: { leeTerm, curvatureTerm, hold: leeTerm < 4 && curvatureTerm <= 4 },
  } as ButterflyRepair<FormOf<S>>;
}
