export { parseBudgetOverride } from "./budget-override";
export type { Calibration } from "./calibrate";
export { calibrateAllowances, MIN_CALIBRATION_USED_PERCENT } from "./calibrate";
export { DEFAULT_TRACE_GLOBS, discoverDefaultTraces, expandTracePath } from "./discover-files";
export { createMeteredPriceLookup } from "./metered-price";
export type { AllowanceUnit, PlanAllowance, WindowLength } from "./plan-allowance";
export {
  configPlanAllowances,
  PLAN_WINDOWS_BY_PROVIDER,
  parsePlanAllowances,
  parseWindow,
  windowEndMs,
} from "./plan-allowance";
export type { PlanWindowState } from "./plan-window";
export { readTrace } from "./read-trace";
export { renderSimulationSummary } from "./render-summary";
export type { IdReplay, ReplayInput, ReplayObserver, ReplaySeries } from "./replay";
export { replayTrace } from "./replay";
export type {
  PlanSetup,
  Scenario,
  ScenarioResult,
  SimulationInput,
  SimulationResult,
} from "./simulation";
export { simulate, totalServed, totalSpendMicroUsd } from "./simulation";
export type { IdSummary, SimulationSummary } from "./summary-document";
export { summarizeReplay, summarizeSimulation } from "./summary-document";
export { RUNG_COLORS, renderSvgChart } from "./svg-chart";
export type { BadLine, Trace, TraceRecord, TraceSource, UtilizationReading } from "./trace-record";
