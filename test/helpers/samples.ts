/** Realistic request inputs and server replies for the 13 operations, shared by client tests. */

export const surface = {
  benchmark_fwd_factors: [1.002, 1.006, 1.013, 1.027],
  smiles: [0.35, 0.3, 0.25, 0.2],
  benchmark_maturities: [30, 91, 182, 365],
  vols: [0.24, 0.225, 0.215, 0.205],
  call_wings: [0.9, 0.85, 0.8, 0.75],
  put_wings: [1.2, 1.15, 1.1, 1.05],
  skews: [-0.12, -0.11, -0.1, -0.09],
  reference_date: "2026-11-20",
  spot_ref: 5321.5,
};

export const bond = {
  date: "2026-11-20",
  bond_identifier: { code: "US91282CJL54", market_identification_code: "XNYS", identifier_type: "ISIN" },
  is_currency_per_bond_unit: false,
  currency: "USD",
  traded_price: 99.8125,
  is_percentage_of_par: true,
};

export const outcomeOk = (type: string) => ({ $type: type, is_success: true, error_messages: [] });

export const curveReply = {
  $type: "Service.Web.Core.MarketData.ApiGetDiscountCurveMktDataResponse, Service.Web.Core",
  yield_curve_model: {
    latest_market_date: "2026-11-20T00:00:00+00:00",
    currency: "EUR",
    market_date: "2026-11-19T00:00:00+00:00",
    data: [
      {
        maturity: 0.0833,
        rate: 0.0291,
        fitted_instrument_name: "EUR DEPO 1M",
        expiry: "2026-12-21T00:00:00+00:00",
        fitted_instrument_rate: 0.029,
      },
      {
        maturity: 2,
        rate: 0.0247,
        fitted_instrument_name: "EUR SWAP 2Y",
        expiry: "2028-11-21T00:00:00+00:00",
        fitted_instrument_rate: 0.0249,
      },
    ],
  },
};

export const reportInfoReply = {
  report_infos: [
    {
      id: "rep-0001",
      report_definition_id: "def-var-01",
      report_name: "Desk VaR 99% 1d",
      description: "Historical VaR",
      status: "succeeded",
      status_message: "",
      portfolio_name: "GLOBAL-MACRO",
      portfolio_type: "provider",
      reporting_currency: "USD",
      real_time_mkt_data: false,
      mkt_data_date: "2026-11-19T00:00:00+00:00",
      pricing_date: "2026-11-20T00:00:00+00:00",
      time_stamp: "2026-11-20T06:31:12.512+00:00",
    },
  ],
};

export const apiKeysReply = [
  { name: "notebook", exposed_value: "rpk_live_4f9a8b7c6d5e4f3a2b1c", id: "key-1" },
  { name: "ci", exposed_value: "rpk_live_0a1b2c3d4e5f6a7b8c9d", id: "key-2" },
];
