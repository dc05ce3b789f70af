/**
 * The written-out wire types (src/api/wire-types.ts) and the client's written-out groups
 * (src/client/groups.ts) equal what the zod schemas and the resources table infer. The type checks
 * below fail `npm run typecheck` (run in CI) when a schema changes and the written types do not; the
 * first test fails when a generated file is not what scripts/gen-wire-types.mjs writes now.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type * as common from "../../src/api/common";
import type * as marketData from "../../src/api/market-data";
import type { OperationDef } from "../../src/api/operation";
import type * as position from "../../src/api/position";
import type * as rateAsset from "../../src/api/rate-asset";
import type * as report from "../../src/api/report";
import type * as launcher from "../../src/api/report-launcher";
import type { Resources } from "../../src/api/resources";
import type * as tradable from "../../src/api/tradable";
import type * as user from "../../src/api/user";
import type * as wire from "../../src/api/wire-types";
import type { ClientGroups } from "../../src/client/groups";
import type { CallOptions } from "../../src/client/pipeline";

const root = path.resolve(__dirname, "../..");

/** The groups as the resources table infers them through zod (what the client declared before). */
type Derived = {
  readonly [K in keyof Resources]: {
    readonly [M in keyof Resources[K]]: Resources[K][M] extends OperationDef & { requestIn: "none" }
      ? (options?: CallOptions) => Promise<z.output<Resources[K][M]["response"]>>
      : Resources[K][M] extends OperationDef
        ? (
            input: z.input<Resources[K][M]["request"]>,
            options?: CallOptions,
          ) => Promise<z.output<Resources[K][M]["response"]>>
        : never;
  };
};

describe("written-out wire types", () => {
  it("src/api/wire-types.ts and src/client/groups.ts are what scripts/gen-wire-types.mjs writes from the schemas and the resources table now", () => {
    // Throws (exit 1, naming the file) when stale.
    execFileSync(process.execPath, [path.join(root, "scripts/gen-wire-types.mjs"), "--check"], { cwd: root });
    // The script type-checks the schemas with TypeScript: 9 s on an idle 2-core machine, 18 s or more under load.
  }, 90_000);

  it("equal the schemas' inferred types, input and output", () => {
    expectTypeOf<wire.Identifier>().toEqualTypeOf<z.output<typeof common.identifier>>();
    expectTypeOf<wire.IdentifierInput>().toEqualTypeOf<z.input<typeof common.identifier>>();
    expectTypeOf<wire.OperationOutcome>().toEqualTypeOf<z.output<typeof common.operationOutcome>>();
    expectTypeOf<wire.ProblemDetails>().toEqualTypeOf<z.output<typeof common.problemDetails>>();
    expectTypeOf<wire.BondPriceRecord>().toEqualTypeOf<z.output<typeof marketData.bondPriceRecord>>();
    expectTypeOf<wire.BondPriceRecordInput>().toEqualTypeOf<z.input<typeof marketData.bondPriceRecord>>();
    expectTypeOf<wire.UploadBondPriceDataRequest>().toEqualTypeOf<
      z.input<typeof marketData.uploadBondPriceDataRequest>
    >();
    expectTypeOf<wire.EquityVolCurve>().toEqualTypeOf<z.output<typeof marketData.equityVolCurve>>();
    expectTypeOf<wire.EquityVolCurveInput>().toEqualTypeOf<z.input<typeof marketData.equityVolCurve>>();
    expectTypeOf<wire.UploadEquityVolCurvesRequest>().toEqualTypeOf<
      z.input<typeof marketData.uploadEquityVolCurvesRequest>
    >();
    expectTypeOf<wire.TransactionTableRequest>().toEqualTypeOf<z.input<typeof position.transactionTableRequest>>();
    expectTypeOf<wire.DataTable>().toEqualTypeOf<z.output<typeof position.dataTable>>();
    expectTypeOf<wire.TransactionTableResponse>().toEqualTypeOf<z.output<typeof position.transactionTableResponse>>();
    expectTypeOf<wire.RateAssetRequest>().toEqualTypeOf<z.input<typeof rateAsset.rateAssetRequest>>();
    expectTypeOf<wire.CurvePoint>().toEqualTypeOf<z.output<typeof rateAsset.curvePoint>>();
    expectTypeOf<wire.YieldCurveModel>().toEqualTypeOf<z.output<typeof rateAsset.yieldCurveModel>>();
    expectTypeOf<wire.RateAssetResponse>().toEqualTypeOf<z.output<typeof rateAsset.rateAssetResponse>>();
    expectTypeOf<wire.VarLauncherItemCreateRequest>().toEqualTypeOf<
      z.input<typeof launcher.varLauncherItemCreateRequest>
    >();
    expectTypeOf<wire.RiskLauncherItemCreateRequest>().toEqualTypeOf<
      z.input<typeof launcher.riskLauncherItemCreateRequest>
    >();
    expectTypeOf<wire.GetReportInfosRequest>().toEqualTypeOf<z.input<typeof report.getReportInfosRequest>>();
    expectTypeOf<wire.ReportInfo>().toEqualTypeOf<z.output<typeof report.reportInfo>>();
    expectTypeOf<wire.GetReportInfosResponse>().toEqualTypeOf<z.output<typeof report.getReportInfosResponse>>();
    expectTypeOf<wire.ReportListResponse>().toEqualTypeOf<z.output<typeof report.reportListResponse>>();
    expectTypeOf<wire.LookBacksResponse>().toEqualTypeOf<z.output<typeof report.lookBacksResponse>>();
    expectTypeOf<wire.VolSurface>().toEqualTypeOf<z.output<typeof tradable.volSurface>>();
    expectTypeOf<wire.VolSurfaceInput>().toEqualTypeOf<z.input<typeof tradable.volSurface>>();
    expectTypeOf<wire.GetVolRequest>().toEqualTypeOf<z.input<typeof tradable.getVolRequest>>();
    expectTypeOf<wire.GetVolResponse>().toEqualTypeOf<z.output<typeof tradable.getVolResponse>>();
    expectTypeOf<wire.TradeEventInput>().toEqualTypeOf<z.input<typeof tradable.tradeEvent>>();
    expectTypeOf<wire.PositionEffectsRequest>().toEqualTypeOf<z.input<typeof tradable.positionEffectsRequest>>();
    expectTypeOf<wire.PositionEffectsResponse>().toEqualTypeOf<z.output<typeof tradable.positionEffectsResponse>>();
    expectTypeOf<wire.TradableBriefQuery>().toEqualTypeOf<z.input<typeof tradable.tradableBriefQuery>>();
    expectTypeOf<wire.TradableBriefResponse>().toEqualTypeOf<z.output<typeof tradable.tradableBriefResponse>>();
    expectTypeOf<wire.ApiKeyEntry>().toEqualTypeOf<z.output<typeof user.apiKeyEntry>>();
    expectTypeOf<wire.ApiKeysResponse>().toEqualTypeOf<z.output<typeof user.apiKeysResponse>>();
  });

  it("the client's groups equal what the resources table infers, method by method", () => {
    expectTypeOf<ClientGroups>().toEqualTypeOf<Derived>();
  });
});
