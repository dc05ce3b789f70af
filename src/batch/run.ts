/**
 * The one batch loop: jobs run with bounded concurrency, a progress line, and the jobs that failed listed
 * beside the results (not thrown, not dropped) — what every `fetch…s` helper of frames/ runs.
 */
import type { DataFrame } from "../../vendor/danfo";
import type { ColumnTable } from "../table/column-table";
import { describeFailure, throwReplayMiss } from "./failure";
import { checkConcurrency, settleBounded } from "./pool";
import { ProgressTracker, type ProgressOptions } from "./progress";

/** A batch's rows as one column table, and the jobs that failed. */
export interface BatchColumns<F> {
  table: ColumnTable;
  failures: F[];
}

/** A batch's rows as one danfo DataFrame, and the jobs that failed. */
export interface BatchFrame<F> {
  frame: DataFrame;
  failures: F[];
}

/** What the loop needs to know of a batch's jobs. */
export interface BatchJobs<J, R, F> {
  /** What the progress line calls the batch (`yield curves`). */
  what: string;
  jobs: readonly J[];
  /** A job as the progress line names it (`USD 2026-11-20`). */
  label(job: J): string;
  run(job: J, index: number): Promise<R>;
  /** The failure record of a job that failed, from its error's message (and HTTP status, when there is one). */
  failure(job: J, reason: { error: string; status?: number }): F;
}

export interface BatchRunOptions extends ProgressOptions {
  /** Jobs in flight at once (1 to 64). Default 4. */
  concurrency?: number;
  /** Stops starting new jobs (those not started are failures). */
  signal?: AbortSignal;
}

/**
 * Runs every job, at most `concurrency` at a time, stepping the progress line as each ends. Returns the
 * results of the jobs that succeeded and the failures, each in job order. A replay without a recorded
 * answer, or a local fault, is thrown instead (see `throwReplayMiss`).
 */
export async function runBatch<J, R, F>(
  batch: BatchJobs<J, R, F>,
  options: BatchRunOptions,
): Promise<{ results: R[]; failures: F[] }> {
  const limit = checkConcurrency(options.concurrency);
  const tracker = new ProgressTracker(batch.what, batch.jobs.length, options);
  const settled = await settleBounded(
    batch.jobs,
    limit,
    async (job, i) => {
      const label = batch.label(job);
      try {
        const result = await batch.run(job, i);
        tracker.step(label, true);
        return result;
      } catch (error) {
        tracker.step(label, false);
        throw error;
      }
    },
    options.signal,
  );
  throwReplayMiss(settled);
  const results: R[] = [];
  const failures: F[] = [];
  settled.forEach((result, i) => {
    if (result.status === "fulfilled") results.push(result.value);
    else failures.push(batch.failure(batch.jobs[i]!, describeFailure(result.reason)));
  });
  return { results, failures };
}
