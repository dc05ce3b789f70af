/**
 * A Promise where an answer belongs is an error (issue 41, item 1). Under Deno no type checker catches a
 * forgotten `await`, and a Promise read as an answer looks like an empty one: `frames.yieldCurve(p)` made
 * a 0-row frame, `frames.transactionTable(p)` a 0×0 one, and nothing said why. The one guard of the public
 * surface: the root's namespaces (the surface room) and its readers (the package's index) wrap each function with
 * {@link guardAnswers}, the classes that take an answer call {@link refuseThenables} first.
 * test/lint/await-guard.test.ts walks the surface so that no function skips it.
 */
import { RiskPortalError } from "./errors";

/** Whether `value` is a Promise or any other thenable (what `await` would wait for). */
export function isThenable(value: unknown): boolean {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  return typeof (value as { then?: unknown }).then === "function";
}

const ORDINALS = ["1st", "2nd", "3rd"];
const ordinal = (i: number): string => ORDINALS[i] ?? `${i + 1}th`;

/** Whether `value` is an object literal (an options bag, a map of answers): its values are looked at. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * Where in `args` a thenable sits, in words ("", " as its 2nd argument", " at index 1 of its 1st
 * argument", ` at key "t" of its 2nd argument`), or undefined when there is none. Each argument is
 * looked at, and one level into it: the elements of an array (a list of answers), the values of an
 * object literal (a map of answers, an options bag). Deeper is not searched: what sits there is an
 * answer's own data (a table's columns, a response's rows), and a Promise there was not the caller's.
 * An array argument is looked at whole, one check an element: a list with one Promise names its index.
 */
function thenableAt(args: ArrayLike<unknown>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (isThenable(arg)) return i === 0 ? "" : ` as its ${ordinal(i)} argument`;
    if (Array.isArray(arg)) {
      for (let j = 0; j < arg.length; j++)
        if (isThenable(arg[j])) return ` at index ${j} of its ${ordinal(i)} argument`;
    } else if (isPlainObject(arg)) {
      // for…in rather than Object.keys: no array made on every call (an object literal inherits no keys)
      for (const key in arg)
        if (isThenable(arg[key])) return ` at key ${JSON.stringify(key)} of its ${ordinal(i)} argument`;
    }
  }
  return undefined;
}

/** The error for a thenable found at `where` in the arguments of `name` (the function as a notebook writes it). */
function forgottenAwait(name: string, where: string): RiskPortalError {
  return new RiskPortalError(`${name} got a Promise${where}: did you forget \`await\`?`, { operation: name });
}

/**
 * Throws a {@link RiskPortalError} when any of `args` is a thenable, or holds one (an array's element, an
 * object literal's value): "frames.yieldCurve got a Promise: did you forget `await`?". `name` is the
 * public function as a notebook writes it.
 */
export function refuseThenables(name: string, args: ArrayLike<unknown>): void {
  const where = thenableAt(args);
  if (where !== undefined) throw forgottenAwait(name, where);
}

/** How {@link guardAnswers} looks at a function's arguments. */
export interface GuardOptions {
  /**
   * The function checks every field of its object arguments itself and throws on a value that is not
   * what it wants (a Promise among them): the values of an object literal are then looked at only when it
   * throws, to name the Promise, and not on every call. For functions called once an item in a loop
   * (`vol.black76`, an object of numbers a call). Default false: looked at before the call.
   */
  fieldsChecked?: boolean;
}

/** Where a thenable sits among the arguments themselves or the elements of an array argument (not deeper). */
function thenableArgument(args: ArrayLike<unknown>): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (isThenable(arg)) return i === 0 ? "" : ` as its ${ordinal(i)} argument`;
    if (Array.isArray(arg))
      for (let j = 0; j < arg.length; j++)
        if (isThenable(arg[j])) return ` at index ${j} of its ${ordinal(i)} argument`;
  }
  return undefined;
}

/** `fn` applied to `args`, its error replaced by the guard's when a field of an object argument is a thenable. */
function callNamingFields(name: string, fn: (...a: unknown[]) => unknown, self: unknown, args: unknown[]): unknown {
  try {
    return fn.apply(self, args);
  } catch (error) {
    const where = thenableAt(args);
    throw where === undefined ? error : forgottenAwait(name, where);
  }
}

/**
 * `fn` behind the guard: the same function to its callers (its `name`, `length` and type), but a Promise
 * among its arguments is refused first ({@link refuseThenables}): thrown by a plain function, a rejected
 * Promise from an async one (so that `.catch` sees it as it sees the function's own errors). With
 * `fieldsChecked`, the values of object arguments are looked at only if `fn` throws ({@link GuardOptions}).
 */
export function guardAnswers<F extends (...args: never[]) => unknown>(
  name: string,
  fn: F,
  options: GuardOptions = {},
): F {
  const isAsync = Object.prototype.toString.call(fn) === "[object AsyncFunction]";
  const call = fn as unknown as (...a: unknown[]) => unknown;
  const fieldsChecked = options.fieldsChecked === true && !isAsync;
  const guarded = function (this: unknown, ...args: unknown[]): unknown {
    const where = fieldsChecked ? thenableArgument(args) : thenableAt(args);
    if (where !== undefined) {
      const error = forgottenAwait(name, where);
      if (isAsync) return Promise.reject(error);
      throw error;
    }
    return fieldsChecked ? callNamingFields(name, call, this, args) : call.apply(this, args);
  };
  Object.defineProperty(guarded, "name", { value: fn.name });
  Object.defineProperty(guarded, "length", { value: fn.length });
  return guarded as unknown as F;
}
